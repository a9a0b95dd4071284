// One implementation for the whole project lives in contracts.
export { stableStringify } from '@tidemark/contracts';
