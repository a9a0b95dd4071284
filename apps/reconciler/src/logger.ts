import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

// Keys whose values are credentials or Secret data wherever they appear in a log line.
const secretKeys = ['password', 'token', 'secret', 'authorization', 'Authorization', 'cookie', 'auth', 'data', 'stringData', 'kubeconfig', 'bearerToken'];

/**
 * Paths redacted in every log line. Credentials never reach a log on purpose; these catch the
 * accidents (an error object carrying request options, a Secret body), up to three levels deep.
 */
export const redactedPaths = [
  ...secretKeys.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
  '*.headers.authorization', '*.headers.Authorization', 'err.config', 'err.request',
];

// user:password@ in URLs and bearer tokens inside free text (error messages quote URLs and headers).
const urlCredentials = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s:]+:[^/@\s]+@/gi;
const bearer = /\b(bearer|basic)\s+[a-z0-9._~+/=-]{8,}/gi;

/** scrubText removes credentials that a message or error text may quote. */
export function scrubText(text: string): string {
  return text.replace(urlCredentials, '$1[redacted]@').replace(bearer, '$1 [redacted]');
}

function scrubStrings(fields: Record<string, unknown>): Record<string, unknown> {
  const scrubbed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) scrubbed[key] = typeof value === 'string' ? scrubText(value) : value;
  return scrubbed;
}

/** createLogger builds the JSON logger every part of the reconciler writes through. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { app: 'tidemark-reconciler' },
    redact: { paths: redactedPaths, censor: '[redacted]' },
    formatters: { log: scrubStrings },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
