import { DelayedError, type Job } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import type { ReconcileJob } from '@tidemark/contracts';
import { LeaseWatch } from './lease-watch';
import type { ObjectState } from './object-state';
import { createProcessor, type ProcessContext } from './process-job';

const payload: ReconcileJob = { source: 'apps', revision: 'a'.repeat(40), cluster: 'rig', objectKey: 'core/ConfigMap/ns/one', reason: 'git-change' };

function contextAt(now: () => number, handler: ProcessContext['handler']): { context: ProcessContext; readForRun: ReturnType<typeof vi.fn> } {
  const readForRun = vi.fn(async () => ({ latest: undefined }));
  const state = { readForRun } as unknown as ObjectState;
  const context: ProcessContext = {
    state, leases: new LeaseWatch(1000, now), removedSlots: new Map(), handler, resyncSchedule: false,
    backoff: { baseMs: 1000, factor: 2, maxMs: 60_000, jitter: 0 }, onError: () => undefined,
  };
  return { context, readForRun };
}

describe('createProcessor', () => {
  it('never starts a run whose lock ran out before it began, and reads and writes nothing for it', async () => {
    const handler = vi.fn(async () => ({ kind: 'done' as const }));
    // BullMQ took the lock at 0; the process got to the job at 5 s, past the 1 s lock.
    const { context, readForRun } = contextAt(() => 5_000, handler);
    const job = { id: 'core/ConfigMap/ns/one@1', processedOn: 0, timestamp: 0, attemptsStarted: 1, opts: {}, name: 'reconcile', data: payload } as unknown as Job<ReconcileJob>;
    await expect(createProcessor(context)(job, 'token')).rejects.toBeInstanceOf(DelayedError);
    expect(handler).not.toHaveBeenCalled();
    expect(readForRun).not.toHaveBeenCalled();
    expect(context.leases.size).toBe(0);
  });
});
