import type { FailureCategory } from '@tidemark/contracts';

/** StalledMarker records a terminal failure: the object is not retried at this revision. */
export interface StalledMarker {
  revision: string;
  code: string;
  message: string;
  /** RFC 3339 time of the failure. */
  at: string;
}

/** FailureRecord is an object's run of consecutive failures, cleared by its next success. */
export interface FailureRecord {
  objectKey: string;
  revision: string;
  /** Consecutive failures; drives the backoff. */
  failures: number;
  code: string;
  message: string;
  /** True when the last failure was terminal (the object is stalled). */
  terminal: boolean;
  /** What kind of failure it is (invalid, forbidden, transient, internal); absent in records written before it existed. */
  category?: FailureCategory;
  at: string;
}

/** parseRecord reads a JSON record we wrote; undefined for a missing or unreadable one. */
export function parseRecord<T extends object>(raw: string | null | undefined): T | undefined {
  if (!raw) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}
