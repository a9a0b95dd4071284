import type { KubernetesManifest } from './manifest';

/**
 * The one rule for what a secret is, for every reader that shows or logs a value: the logger, the
 * dashboard, drift, previews, notifications and the CLI. Keys are matched without regard to case
 * or separators (`PASSWORD`, `apiKey`, `client_secret`, `X-Auth-Token`); text anywhere is scrubbed
 * of credentials it may quote: the user part of a URL, `token=` style query parameters, and
 * `Bearer`/`Basic` values; an object's values are secret when it is a Secret or opts in by
 * annotation.
 */

/** redactedText replaces a secret value. */
export const redactedText = '[redacted]';

// Compared after lower-casing and dropping '-', '_' and '.'.
const secretKeyPattern = /(password|passwd|passphrase|secret|token|apikey|accesskey|privatekey|credential|authorization|cookie|kubeconfig|bearer|sessionid|csrf)/;
const exactSecretKeys = new Set(['auth', 'data', 'stringdata', 'binarydata', 'key', 'cert', 'pass', 'pwd']);
const maxDepth = 12;

/** isSecretKey tells whether a field name names a credential or Secret data. */
export function isSecretKey(key: string): boolean {
  const folded = key.toLowerCase().replace(/[-_.]/g, '');
  return exactSecretKeys.has(folded) || secretKeyPattern.test(folded);
}

// Any user part: `user:password@`, `:password@` (Redis) and a token alone (`https://ghp_…@github.com`).
const urlUserinfo = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;
const authorizationValue = /\b(bearer|basic|token)(\s+|=|:\s*)[a-z0-9._~+/=-]{8,}/gi;
const queryCredential = /([?&;](?:access_token|token|api_?key|apikey|key|password|secret|sig|signature|auth)=)[^&#\s"']+/gi;

/** scrubText removes credentials that a message or error text may quote; the user part of a URL becomes `***`. */
export function scrubText(text: string, censor: string = redactedText): string {
  return text.replace(urlUserinfo, '$1***@').replace(queryCredential, `$1${censor}`).replace(authorizationValue, `$1 ${censor}`);
}

/** LogTailOptions bound what logTail keeps of a log. */
export interface LogTailOptions {
  /** The last this many lines are kept. */
  lines: number;
  /** Each kept line is cut to this many characters, `…` marking a cut. */
  lineChars: number;
  /** Drop lines that are blank once cleaned. @defaultValue false */
  skipBlank?: boolean;
}

// ANSI escape sequences (colour, cursor moves) go whole, so no `[31m` is left behind.
// eslint-disable-next-line no-control-regex -- matching escape sequences is the point
const ansiSequence = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-_]/g;
// Other control characters (tab excepted) and the bidirectional overrides that reorder what a reader sees.
const invisibleCharacters = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * logTail is the one bounded reading of a workload's log for a person: the last `lines` lines,
 * each without control characters, scrubbed by scrubText, then cut to `lineChars`. Control
 * characters are removed, not spaced, and the line is scrubbed before and after, so none can
 * split a credential out of scrubText's sight; the whole line is scrubbed before the cut, so no
 * cut half of one escapes it either.
 */
export function logTail(text: string, options: LogTailOptions): string[] {
  // Only the last lines are read, and of each only four cuts' worth: the regular expressions see bounded text.
  const split = text.split(/\r?\n/);
  const lines = (options.skipBlank ? split.filter((line) => line.trim() !== '') : split).slice(-(options.lines + 1)).map((line) => line.slice(0, options.lineChars * 4));
  // Scrubbed before and after: removing an escape must neither hide a credential nor make one.
  const cleaned = lines.map((line) => scrubText(scrubText(line).replace(ansiSequence, '').replace(invisibleCharacters, (found) => (found === '\t' ? found : '')).trimEnd()));
  const kept = options.skipBlank ? cleaned.filter((line) => line !== '') : cleaned;
  // The empty text after a log's last newline is not a line of it.
  if (!options.skipBlank && kept.at(-1) === '' && (text === '' || text.endsWith('\n'))) kept.pop();
  return kept.slice(-options.lines).map((line) => (line.length > options.lineChars ? `${line.slice(0, options.lineChars)}…` : line));
}

/**
 * redactUrl returns a URL safe to log or show: credentials, query and fragment are removed,
 * because tokens end up in any of them. Text that is not a URL is replaced entirely.
 */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    const userinfo = url.username || url.password ? '***@' : '';
    return `${url.protocol}//${userinfo}${url.host}${url.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** RedactOptions: how a hidden value reads. */
export interface RedactOptions {
  /** @defaultValue redactedText */
  censor?: string;
}

/**
 * redactValue copies a value with every secret key's value replaced and every string scrubbed, at
 * any depth. An Error keeps its type, message, stack, cause and own fields, scrubbed; request
 * options (`config`, `request`, `response`) are dropped. Cycles and depth are bounded.
 */
export function redactValue(value: unknown, options: RedactOptions = {}): unknown {
  return redactAt(value, 0, new WeakSet(), options.censor ?? redactedText);
}

function redactAt(value: unknown, depth: number, seen: WeakSet<object>, censor: string): unknown {
  if (typeof value === 'string') return scrubText(value, censor);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= maxDepth) return '[too deep]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactAt(item, depth + 1, seen, censor));
  if (value instanceof Error) return redactError(value, depth, seen, censor);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = isSecretKey(key) ? censor : redactAt(item, depth + 1, seen, censor);
  return copy;
}

function redactError(error: Error, depth: number, seen: WeakSet<object>, censor: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { type: error.name, message: scrubText(error.message, censor), ...(error.stack ? { stack: scrubText(error.stack, censor) } : {}) };
  for (const [key, item] of Object.entries(error)) {
    if (key === 'config' || key === 'request' || key === 'response') continue;
    copy[key] = isSecretKey(key) ? censor : redactAt(item, depth + 1, seen, censor);
  }
  if (error.cause !== undefined) copy.cause = redactAt(error.cause, depth + 1, seen, censor);
  return copy;
}

/**
 * redactAnnotation: an object annotated so ("true") asks that its values never leave the cluster
 * in drift items or previews: only that a field changed is recorded, as for a Secret's data.
 */
export const redactAnnotation = 'tidemark.dev/redact';

/** RedactableObject is what isRedactedObject reads of an object (a manifest, or a record's copy of one). */
export type RedactableObject = Pick<KubernetesManifest, 'apiVersion' | 'kind'> & { metadata?: { annotations?: Record<string, unknown> | undefined } };

/** isRedactedObject: a v1 Secret always is; any other object when it opts in by annotation. */
export function isRedactedObject(object: RedactableObject): boolean {
  if (object.kind === 'Secret' && object.apiVersion === 'v1') return true;
  return object.metadata?.annotations?.[redactAnnotation] === 'true';
}
