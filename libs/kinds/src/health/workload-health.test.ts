import { describe, expect, it } from 'vitest';
import { healthOf } from './health-of';
import { condition, live } from '../testing/health-test-objects';

describe('healthOf StatefulSet', () => {
  const statefulSet = (status: Record<string, unknown>, updateStrategy?: unknown) =>
    live('apps/v1', 'StatefulSet', { generation: 1, spec: { replicas: 2, ...(updateStrategy ? { updateStrategy } : {}) }, status: { observedGeneration: 1, ...status } });

  it('is Ready when all replicas are ready on the current revision', () => {
    expect(healthOf(statefulSet({ readyReplicas: 2, updatedReplicas: 2, currentRevision: 'web-1', updateRevision: 'web-1' }))).toEqual({ status: 'Ready', message: 'StatefulSet shop/web has 2 of 2 replicas ready.' });
  });

  it('is Progressing while replicas are not ready', () => {
    expect(healthOf(statefulSet({ readyReplicas: 1 })).status).toBe('Progressing');
  });

  it('is Progressing during a rolling update to a new revision', () => {
    expect(healthOf(statefulSet({ readyReplicas: 2, updatedReplicas: 1, currentRevision: 'web-1', updateRevision: 'web-2' }))).toMatchObject({ status: 'Progressing', message: expect.stringContaining('rolling out revision web-2') });
  });

  it('does not wait for a new revision with OnDelete', () => {
    expect(healthOf(statefulSet({ readyReplicas: 2, currentRevision: 'web-1', updateRevision: 'web-2' }, { type: 'OnDelete' })).status).toBe('Ready');
  });
});

describe('healthOf DaemonSet', () => {
  const daemonSet = (status: Record<string, unknown>) => live('apps/v1', 'DaemonSet', { generation: 1, status: { observedGeneration: 1, ...status } });

  it('is Ready when every node runs an updated, available pod', () => {
    expect(healthOf(daemonSet({ desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }))).toEqual({ status: 'Ready', message: 'DaemonSet shop/web has 3 of 3 pods available.' });
  });

  it('is Progressing while pods are updated or unavailable', () => {
    expect(healthOf(daemonSet({ desiredNumberScheduled: 3, updatedNumberScheduled: 2, numberAvailable: 3 })).status).toBe('Progressing');
    expect(healthOf(daemonSet({ desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 1 })).message).toContain('1 of 3 pods available');
  });

  it('is Progressing, not "0 of 0 pods", before its controller has written status', () => {
    expect(healthOf(live('apps/v1', 'DaemonSet', { generation: 1 }))).toMatchObject({ status: 'Progressing', message: expect.stringContaining('no status from the daemonset controller yet') });
  });
});

describe('healthOf ReplicaSet', () => {
  it('is Ready when available, Progressing when not, Failed on ReplicaFailure', () => {
    expect(healthOf(live('apps/v1', 'ReplicaSet', { spec: { replicas: 2 }, status: { availableReplicas: 2 } })).status).toBe('Ready');
    expect(healthOf(live('apps/v1', 'ReplicaSet', { spec: { replicas: 2 }, status: { availableReplicas: 1 } })).status).toBe('Progressing');
    expect(healthOf(live('apps/v1', 'ReplicaSet', { spec: { replicas: 2 }, status: { conditions: [condition('ReplicaFailure', 'True', 'FailedCreate', 'exceeded quota')] } }))).toMatchObject({
      status: 'Failed',
      message: expect.stringContaining('exceeded quota'),
    });
  });
});

describe('healthOf Job', () => {
  const job = (conditions: unknown[], status: Record<string, unknown> = {}) => live('batch/v1', 'Job', { status: { conditions, ...status } });

  it('is Ready when Complete', () => {
    expect(healthOf(job([condition('Complete', 'True')]))).toEqual({ status: 'Ready', message: 'Job shop/web completed.' });
  });

  it('is Failed when Failed, with the reason', () => {
    expect(healthOf(job([condition('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit')]))).toMatchObject({
      status: 'Failed',
      message: expect.stringContaining('Job has reached the specified backoff limit'),
    });
  });

  it('is Progressing while running or suspended', () => {
    expect(healthOf(job([], { active: 2 }))).toEqual({ status: 'Progressing', message: 'Job shop/web is running (2 active pods).' });
    expect(healthOf(job([condition('Suspended', 'True')])).message).toContain('spec.suspend');
  });
});
