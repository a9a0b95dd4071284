import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { readGate, statusKey } from './rollout-gate';

const b = 'b'.repeat(40);
const a = 'a'.repeat(40);
const key = 'apps/Deployment/shop/web';
const record = (overrides: Partial<ObjectStatus>): ObjectStatus => ({
  cluster: 'canary', objectKey: key, source: 'apps', apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web',
  conditions: [], inventory: [], updatedAt: '2026-12-06T10:00:00Z', ...overrides,
});
const readyCondition = (status: 'True' | 'False', reason: string, message = '') => ({ type: 'Ready', status, reason, message, lastTransitionTime: '2026-12-06T10:00:00Z', observedGeneration: 1 });
const gate = (status: ObjectStatus | undefined) => readGate(['canary'], b, new Map([['canary', [key]]]), new Map([[statusKey('canary', key), status]]));

describe('readGate', () => {
  it.each([
    ['no record yet', undefined, { ready: false, pending: { reason: 'not applied yet' } }],
    ['Ready at the old revision', record({ lastAppliedRevision: a, conditions: [readyCondition('True', 'ReconciliationSucceeded')] }), { ready: false, pending: { reason: 'still at aaaaaaaaaaaa' } }],
    ['Ready at the new revision', record({ lastAppliedRevision: b, conditions: [readyCondition('True', 'ReconciliationSucceeded')] }), { ready: true }],
    ['progressing at the new revision', record({ lastAppliedRevision: b, conditions: [readyCondition('False', 'Progressing', '0 of 1 available')] }), { ready: false, pending: { reason: 'Reconciling (Progressing): 0 of 1 available' } }],
    ['health timed out at the new revision', record({ lastAppliedRevision: b, conditions: [readyCondition('False', 'HealthCheckFailed', 'has 0 of 1 replicas available')] }), { ready: false, failed: { cluster: 'canary', objectKey: key, reason: 'HealthCheckFailed: has 0 of 1 replicas available' } }],
    ['stalled at the new revision', record({ lastAttemptedRevision: b, lastAppliedRevision: a, conditions: [{ ...readyCondition('False', 'ValidationFailed', 'bad'), type: 'Stalled', status: 'True' }] }), { ready: false, failed: { reason: 'Stalled: bad' } }],
  ] as [string, ObjectStatus | undefined, object][])('%s', (_name, status, expected) => {
    expect(gate(status)).toMatchObject(expected);
  });

  it('passes a batch with nothing placed on it', () => {
    expect(readGate(['empty'], b, new Map(), new Map())).toEqual({ clusters: ['empty'], ready: true });
  });
});
