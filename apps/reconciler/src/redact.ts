/**
 * Redaction of credentials and Secret data from log fields, at any depth. Keys are matched
 * without regard to case or separators (`PASSWORD`, `apiKey`, `client_secret`, `X-Auth-Token`),
 * and strings anywhere are scrubbed of credentials that text may quote: `user:password@` in URLs,
 * `token=` style query parameters, and `Bearer`/`Basic` values.
 */

const censor = '[redacted]';
// Compared after lower-casing and dropping '-', '_' and '.'.
const secretKeyPattern = /(password|passwd|passphrase|secret|token|apikey|accesskey|privatekey|credential|authorization|cookie|kubeconfig|bearer|sessionid|csrf)/;
const exactSecretKeys = new Set(['auth', 'data', 'stringdata', 'binarydata', 'key', 'cert', 'pass', 'pwd']);
const maxDepth = 12;

/** isSecretKey tells whether a field name names a credential or Secret data. */
export function isSecretKey(key: string): boolean {
  const folded = key.toLowerCase().replace(/[-_.]/g, '');
  return exactSecretKeys.has(folded) || secretKeyPattern.test(folded);
}

// The user part may be empty (`redis://:password@host`).
const urlCredentials = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s:]*:[^/@\s]+@/gi;
const authorizationValue = /\b(bearer|basic|token)(\s+|=|:\s*)[a-z0-9._~+/=-]{8,}/gi;
const queryCredential = /([?&;](?:access_token|token|api_?key|apikey|key|password|secret|sig|signature|auth)=)[^&#\s"']+/gi;

/** scrubText removes credentials that a message or error text may quote. */
export function scrubText(text: string): string {
  return text.replace(urlCredentials, `$1${censor}@`).replace(queryCredential, `$1${censor}`).replace(authorizationValue, `$1 ${censor}`);
}

/** redactFields returns a copy of log fields with secret keys censored and every string scrubbed. */
export function redactFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactValue(fields, 0, new WeakSet()) as Record<string, unknown>;
}

function redactValue(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= maxDepth) return '[too deep]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, seen));
  if (value instanceof Error) return redactError(value, depth, seen);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = isSecretKey(key) ? censor : redactValue(item, depth + 1, seen);
  return copy;
}

/** redactError keeps an error's type, message, stack and own fields, scrubbed; request options are dropped. */
function redactError(error: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const copy: Record<string, unknown> = { type: error.name, message: scrubText(error.message), ...(error.stack ? { stack: scrubText(error.stack) } : {}) };
  for (const [key, item] of Object.entries(error)) {
    if (key === 'config' || key === 'request' || key === 'response') continue;
    copy[key] = isSecretKey(key) ? censor : redactValue(item, depth + 1, seen);
  }
  if (error.cause !== undefined) copy.cause = redactValue(error.cause, depth + 1, seen);
  return copy;
}
