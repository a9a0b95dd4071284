import { redactUrl as redactHttpUrl } from '@tidemark/contracts';
import { parseSshUrl } from './ssh-url';

/**
 * redactUrl is the contracts rule (no credentials, query or fragment) for http(s) URLs. An SSH URL
 * that parses holds no secret (a password or query is refused), so it is shown as written.
 */
export function redactUrl(text: string): string {
  const ssh = parseSshUrl(text);
  return ssh && 'target' in ssh ? text : redactHttpUrl(text);
}
