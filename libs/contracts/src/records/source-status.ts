import type { Redis } from 'ioredis';
import type { RecordKeys } from './record-keys';

/**
 * SourceStatus is what the poller records about one source: the dashboard, the watches, cluster
 * recovery and the full resync read it. It never holds a credential. Written only by the poller.
 */
export interface SourceStatus {
  /** Last revision delivered to onChanges; a new leader diffs from it. */
  revision?: string;
  /** Newest revision fetched, recorded before its changes are delivered; what a woken object is compared with. */
  head?: string;
  /** When `revision` was first fetched (RFC 3339). */
  fetchedAt?: string;
  /** When the last poll ended, successful or not. */
  polledAt?: string;
  durationMs?: number;
  fetchedObjects?: number;
  changes?: number;
  /** Problems in the source at `revision` (broken files, duplicates). */
  sourceErrors?: number;
  state?: 'ok' | 'error';
  /** The last poll's failure, when it failed. */
  error?: string;
  errorAt?: string;
  /** Which replica polls the source. */
  leader?: string;
}

const numericFields = ['durationMs', 'fetchedObjects', 'changes', 'sourceErrors'] as const;
const textFields = ['revision', 'head', 'fetchedAt', 'polledAt', 'error', 'errorAt', 'leader'] as const;

/** parseSourceStatus checks a source status hash field by field; unknown fields are dropped. */
export function parseSourceStatus(raw: Record<string, string>): SourceStatus {
  const status: SourceStatus = {};
  for (const field of textFields) if (raw[field] !== undefined) status[field] = raw[field];
  for (const field of numericFields) {
    const value = Number(raw[field]);
    if (raw[field] !== undefined && Number.isFinite(value)) status[field] = value;
  }
  if (raw.state === 'ok' || raw.state === 'error') status.state = raw.state;
  return status;
}

/** readSourceStatus reads a source's status hash (empty when the source was never polled). */
export async function readSourceStatus(redis: Redis, keys: RecordKeys, source: string): Promise<SourceStatus> {
  return parseSourceStatus(await redis.hgetall(keys.sourceStatus(source)));
}
