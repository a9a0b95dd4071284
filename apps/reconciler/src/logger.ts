import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { redactValue, scrubText } from '@tidemark/contracts';

/**
 * createLogger builds the JSON logger every part of the reconciler writes through. Credentials
 * never reach a log on purpose; the redaction catches the accidents (an error carrying request
 * options, a Secret body, a token in a URL) at any depth and in any spelling, by the one secret rule
 * (libs/contracts redaction.ts).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { app: 'tidemark-reconciler' },
    formatters: { log: (fields) => redactValue(fields) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrubText(arg) : arg)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
