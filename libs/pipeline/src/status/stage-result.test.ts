import { describe, expect, it } from 'vitest';
import { parseObjectKey, type ObjectStatus, type ReconcileJob } from '@tidemark/contracts';
import type { ReconcileRun } from '../run';
import { resultStage } from './stage-status';

const job: ReconcileJob = { source: 'apps', revision: 'a'.repeat(40), cluster: 'prod-a', objectKey: 'tidemark.dev/WebApp/shop/web', reason: 'resync' };
const at = new Date().toISOString();
const stalledRecord = { conditions: [{ type: 'Stalled', status: 'True', reason: 'ValidationFailed', message: 'spec.replicas must be >= 0', lastTransitionTime: at }] } as unknown as ObjectStatus;
const skippedRun = (previous: ObjectStatus) => ({ job, ref: parseObjectKey(job.objectKey), fetched: 'skip', previous }) as unknown as ReconcileRun;

describe('resultStage for a run fetch skipped', () => {
  it('says the object is still stalled, so the queue keeps its cache from this outcome', () => {
    expect(resultStage(skippedRun(stalledRecord), {})).toEqual({ kind: 'done', stalled: { code: 'ValidationFailed', message: 'spec.replicas must be >= 0' } });
  });

  it('is plain done for a suspended object', () => {
    expect(resultStage(skippedRun({ ...stalledRecord, suspended: true } as ObjectStatus), {})).toEqual({ kind: 'done' });
  });
});
