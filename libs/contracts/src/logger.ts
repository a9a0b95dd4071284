/**
 * Logger is the one logging surface libraries take (pino fits it): structured fields first,
 * then a sentence. Libraries never create a logger; the app hands its own in.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
