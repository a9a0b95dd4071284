/**
 * Logger is the one logging surface libraries take (pino fits it): structured fields first,
 * then a sentence. Libraries never create a logger; the app hands its own in.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  /** error is for what a user must fix (pino has it); a logger without it gets warn. */
  error?(fields: Record<string, unknown>, message: string): void;
}
