import { Value } from '@sinclair/typebox/value';
import { ReconcileJob, countOf, dropTraceparent, failureCategories, jsonRecordOf, oneOf, optional, textOf, type FailureCategory } from '@tidemark/contracts';

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

const textLength = 64 * 1024;

/** parseStalledMarker reads a stored stalled marker; undefined for a missing one or anything that is not one. */
export function parseStalledMarker(raw: string | null | undefined): StalledMarker | undefined {
  const value = jsonRecordOf(raw);
  const revision = textOf(value?.revision, 128);
  const code = textOf(value?.code, 128);
  const message = textOf(value?.message, textLength);
  const at = textOf(value?.at, 64);
  return revision === undefined || code === undefined || message === undefined || at === undefined ? undefined : { revision, code, message, at };
}

/** parseFailureRecord reads an object's stored failures; undefined for a missing one or anything that is not one. */
export function parseFailureRecord(raw: string | null | undefined): FailureRecord | undefined {
  const value = jsonRecordOf(raw);
  const objectKey = textOf(value?.objectKey, 1024);
  const revision = textOf(value?.revision, 128);
  const failures = countOf(value?.failures);
  const code = textOf(value?.code, 128);
  const message = textOf(value?.message, textLength);
  const at = textOf(value?.at, 64);
  if (!value || objectKey === undefined || revision === undefined || failures === undefined || !Number.isInteger(failures) || code === undefined || message === undefined || at === undefined) return undefined;
  return { objectKey, revision, failures, code, message, terminal: value.terminal === true, at, ...optional('category', oneOf(value.category, failureCategories)) };
}

/**
 * parseReconcileJob reads a job kept in a slot (the newest revision of an object); undefined for a
 * missing one or anything that is not a ReconcileJob. A traceparent that is not one is dropped, as
 * for a job's own payload.
 */
export function parseReconcileJob(raw: string | null | undefined): ReconcileJob | undefined {
  const value = jsonRecordOf(raw);
  if (!value) return undefined;
  const job = dropTraceparent(value);
  return Value.Check(ReconcileJob, job) ? job : undefined;
}
