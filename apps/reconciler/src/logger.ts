import { pino, type Logger } from 'pino';

/**
 * Paths redacted in every log line. Credentials never reach a log on purpose; these catch the
 * accidents (an error object carrying request options, a Secret body).
 */
export const redactedPaths = [
  '*.password', '*.token', '*.secret', '*.authorization', '*.Authorization',
  '*.headers.authorization', '*.headers.Authorization', '*.auth', '*.data', '*.stringData',
  'err.config', 'err.request',
];

/** createLogger builds the JSON logger every part of the reconciler writes through. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, base: { app: 'tidemark-reconciler' }, redact: { paths: redactedPaths, censor: '[redacted]' } }, destination as never);
}
