// The one secret rule lives in contracts; git-source's callers import it from here until their files are free to change.
export { redactUrl } from '@tidemark/contracts';
