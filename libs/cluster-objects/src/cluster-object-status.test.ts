import { describe, expect, it } from 'vitest';
import { findCondition } from '@tidemark/contracts';
import { clusterStatus } from './cluster-object-status';

const now = new Date('2026-12-06T12:00:00Z');

describe('clusterStatus', () => {
  it('is Ready when served and the API server answered, with its version and the last contact', () => {
    const status = clusterStatus({ generation: 3, contact: { ok: true, serverVersion: 'v1.34.1', at: now.toISOString() } }, {}, now);
    expect(findCondition(status.conditions, 'Reachable')).toMatchObject({ status: 'True', reason: 'Connected', observedGeneration: 3 });
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'Served' });
    expect(status).toMatchObject({ observedGeneration: 3, serverVersion: 'v1.34.1', lastContact: now.toISOString() });
  });

  it('is Reachable=False and not Ready when the server does not answer, keeping the last version and contact', () => {
    const previous = { serverVersion: 'v1.34.1', lastContact: '2026-12-06T11:00:00Z' };
    const status = clusterStatus({ generation: 1, contact: { ok: false, message: 'connect ECONNREFUSED', at: now.toISOString() } }, previous, now);
    expect(findCondition(status.conditions, 'Reachable')).toMatchObject({ status: 'False', reason: 'Unreachable', message: 'connect ECONNREFUSED' });
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'Unreachable' });
    expect(status).toMatchObject(previous);
  });

  it('says why a Cluster is not served, and that it was not contacted', () => {
    const status = clusterStatus({ generation: 2, problem: { reason: 'NameClash', message: 'taken' } }, {}, now);
    expect(findCondition(status.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'NameClash', message: 'taken' });
    expect(findCondition(status.conditions, 'Reachable')).toMatchObject({ status: 'Unknown', reason: 'NotChecked' });
  });
});
