import { describe, expect, it } from 'vitest';
import type { ClusterConnection } from '@tidemark/cluster';
import { NotReadyError, parseObjectKey, TransientError, type KubernetesManifest, type ObjectStatus, type ReconcileJob } from '@tidemark/contracts';
import type { RegisteredKind } from '@tidemark/kinds';
import { noSpan } from '@tidemark/tracing';
import type { Declaration } from '../dependencies';
import { DuplicateObjectError } from '../fetch/duplicate-check';
import { finalize, type RunWrite, type RunWriters } from './finalize';
import type { ApplyOutcome, ReconcileRun } from '../run';
import type { StatusResult } from './stage-status';

// finalize's writers are recorded here: the order of a run's writes is the contract under test,
// and it does not depend on what is on the other side of them (the rig suites cover that).
const job: ReconcileJob = { source: 'apps', revision: 'a'.repeat(40), cluster: 'prod-a', objectKey: 'tidemark.dev/WebApp/shop/web', reason: 'git-change' };
const live: KubernetesManifest = { apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'web', namespace: 'shop', generation: 2 }, status: {} };
const other: Declaration = { source: 'team-b', revision: 'b'.repeat(40), objectKey: 'tidemark.dev/WebApp/shop/web', object: live, path: 'web.yaml' };
const canonical: RunWrite[] = ['status', 'events', 'record', 'wake'];

function runOf(extra: Partial<ReconcileRun>): ReconcileRun {
  const connection = {} as ClusterConnection;
  return {
    job, ref: parseObjectKey(job.objectKey), startedAt: new Date(), stage: 'fetch', span: noSpan,
    connection, actionsConnection: connection, reportingConnection: connection,
    plugin: {} as RegisteredKind, live, object: live, desired: { object: live, path: 'web.yaml' } as ReconcileRun['desired'],
    ...extra,
  };
}

function recording(options: { statusFails?: boolean } = {}): { writes: RunWrite[]; writers: RunWriters; woken: Declaration[] } {
  const writes: RunWrite[] = [];
  const woken: Declaration[] = [];
  let statusFails = options.statusFails ?? false;
  return {
    writes,
    woken,
    writers: {
      async status(about) {
        writes.push('status');
        if (statusFails) {
          statusFails = false;
          throw new TransientError('ApiServerUnavailable', 'the API server did not answer');
        }
        return about;
      },
      async events(_about, events) { if (events.length > 0) writes.push('events'); },
      async record(write) { if (write.action !== 'none') writes.push('record'); },
      async wake({ tokens, declarations }) {
        if (tokens.length + declarations.length > 0) writes.push('wake');
        woken.push(...declarations);
      },
    },
  };
}

function applied(): StatusResult {
  const record = { cluster: job.cluster, objectKey: job.objectKey, conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded', message: 'Ready.', lastTransitionTime: new Date().toISOString() }], inventory: [] } as unknown as ObjectStatus;
  return { record, customStatus: { conditions: record.conditions }, events: [{ type: 'Normal', reason: 'Updated', message: 'web configured' }] };
}

const outcome = { applied: { changes: [{ action: 'configured' }] }, pruned: [], kept: [], health: { status: 'Ready', message: 'Ready.' } } as unknown as ApplyOutcome;

describe('finalize writes a run in one order on every path: /status, Events, record, wake-ups', () => {
  it('an applied run', async () => {
    const { writes, writers } = recording();
    const run = runOf({ fetched: 'reconcile', stage: 'status', outcome });
    await finalize(run, {} as never, applied(), writers);
    expect(writes).toEqual(canonical);
  });

  it('a failed run', async () => {
    const { writes, writers } = recording();
    const run = runOf({ fetched: 'reconcile', stage: 'apply', failure: new TransientError('ApplyFailed', 'the webhook refused it') });
    await finalize(run, {} as never, undefined, writers);
    expect(writes).toEqual(['status', 'events', 'record']);
  });

  it('a waiting run (its dependents are told why it waits)', async () => {
    const { writes, writers } = recording();
    const run = runOf({ fetched: 'reconcile', stage: 'order', failure: new NotReadyError('DependencyNotReady', 'waits for Deployment shop/db', 5_000) });
    await finalize(run, {} as never, undefined, writers);
    expect(writes).toEqual(canonical);
  });

  it('an applied run whose /status cannot be written becomes a failed one, written in the same order', async () => {
    const { writes, writers } = recording({ statusFails: true });
    const run = runOf({ fetched: 'reconcile', stage: 'status', outcome });
    await finalize(run, {} as never, applied(), writers);
    expect(run.failure?.code).toBe('ApiServerUnavailable');
    expect(writes).toEqual(['status', 'status', 'events', 'record']);
  });

  it('a run refused as a duplicate wakes the other declaration after its record', async () => {
    const { writes, writers, woken } = recording();
    const run = runOf({ fetched: 'fail', failure: new DuplicateObjectError('declared twice', 60_000, [other]) });
    await finalize(run, {} as never, undefined, writers);
    expect(writes).toEqual(canonical);
    expect(woken).toEqual([other]);
  });

  it('a CR deleted by hand (pruned, to be recreated)', async () => {
    const { writes, writers } = recording();
    const pruned = { deleted: [{ subject: 'Deployment shop/web', action: 'deleted' }], kept: [] } as never;
    const run = runOf({ fetched: 'reconcile', stage: 'deletion', deletion: { action: 'pruned', pruned } });
    await finalize(run, {} as never, undefined, writers);
    expect(writes).toEqual(['events', 'record']);
  });

  it('an object removed from Git and orphaned wakes the other declaration of its live object last', async () => {
    const { writes, writers, woken } = recording();
    const orphaned = { entry: { apiVersion: live.apiVersion, kind: 'WebApp', namespace: 'shop', name: 'web' }, guard: 'prune-annotation', reason: 'it says tidemark.dev/prune: disabled' } as never;
    const run = runOf({ fetched: 'reconcile', stage: 'deletion', desired: undefined, deletion: { action: 'orphaned', orphaned }, wakes: [other] });
    await finalize(run, {} as never, undefined, writers);
    expect(writes).toEqual(['events', 'record', 'wake']);
    expect(woken).toEqual([other]);
  });

  it('a skipped run writes nothing', async () => {
    const { writes, writers } = recording();
    await finalize(runOf({ fetched: 'skip' }), {} as never, undefined, writers);
    expect(writes).toEqual([]);
  });
});
