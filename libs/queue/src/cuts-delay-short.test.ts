import { describe, expect, it } from 'vitest';
import type { ReconcileJob } from '@tidemark/contracts';
import { cutsDelayShort } from './cuts-delay-short';

const job = (reason: ReconcileJob['reason']): ReconcileJob => ({ source: 's', revision: 'a'.repeat(40), cluster: 'c', objectKey: 'core/ConfigMap/n/x', reason });

describe('cutsDelayShort', () => {
  it('lets a new revision replace a delayed job', () => {
    expect(cutsDelayShort(job('git-change'), { kind: 'written', revisionChanged: true, newlyRemoved: false })).toBe(true);
  });

  it('keeps a backoff or requeue interval for a resync at the same revision', () => {
    expect(cutsDelayShort(job('resync'), { kind: 'written', revisionChanged: false, newlyRemoved: false })).toBe(false);
    expect(cutsDelayShort(job('git-change'), { kind: 'written', revisionChanged: false, newlyRemoved: false })).toBe(false);
  });

  it('lets a removal at the same revision replace a delayed job (the source changed, not the commit), once', () => {
    expect(cutsDelayShort(job('git-removed'), { kind: 'written', revisionChanged: false, newlyRemoved: true })).toBe(true);
    expect(cutsDelayShort(job('git-removed'), { kind: 'written', revisionChanged: false, newlyRemoved: false })).toBe(false);
  });

  it('lets a person or a cluster event ask for a look now', () => {
    expect(cutsDelayShort(job('manual'), { kind: 'written', revisionChanged: false, newlyRemoved: false })).toBe(true);
    expect(cutsDelayShort(job('watch'), { kind: 'kept' })).toBe(true);
    expect(cutsDelayShort(job('drift'), { kind: 'kept' })).toBe(true);
  });
});
