import { describe, expect, it } from 'vitest';
import { healthOf } from './health-of';
import { condition, live } from '../testing/health-test-objects';

function deployment(status: Record<string, unknown>, replicas = 3, generation = 2) {
  return live('apps/v1', 'Deployment', { generation, spec: { replicas }, status: { observedGeneration: 2, ...status } });
}

describe('healthOf Deployment', () => {
  it('is Ready when all replicas are updated and available', () => {
    expect(healthOf(deployment({ replicas: 3, updatedReplicas: 3, availableReplicas: 3, conditions: [condition('Available', 'True')] }))).toEqual({
      status: 'Ready',
      message: 'Deployment shop/web has 3 of 3 replicas available.',
    });
  });

  it('is Progressing while the controller has not observed the latest generation', () => {
    expect(healthOf(deployment({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 }, 3, 3))).toEqual({
      status: 'Progressing',
      message: 'Deployment shop/web has not observed generation 3 yet (observed 2); wait for its controller, or check that the controller is running.',
    });
  });

  it('is Progressing while replicas are being updated', () => {
    expect(healthOf(deployment({ replicas: 3, updatedReplicas: 1, availableReplicas: 3 }))).toMatchObject({ status: 'Progressing', message: 'Deployment shop/web has 1 of 3 replicas updated to the latest pod template.' });
  });

  it('is Progressing while old replicas terminate', () => {
    expect(healthOf(deployment({ replicas: 4, updatedReplicas: 3, availableReplicas: 3 }))).toMatchObject({ status: 'Progressing', message: expect.stringContaining('1 old replicas') });
  });

  it('is Progressing while not all replicas are available', () => {
    expect(healthOf(deployment({ replicas: 3, updatedReplicas: 3, availableReplicas: 2 }))).toMatchObject({ status: 'Progressing', message: expect.stringContaining('2 of 3 replicas available') });
  });

  it('is Progressing when the Available condition is False', () => {
    expect(healthOf(deployment({ replicas: 3, updatedReplicas: 3, availableReplicas: 3, conditions: [condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.')] }))).toMatchObject({
      status: 'Progressing',
    });
  });

  it('is Failed when the progress deadline is exceeded', () => {
    const stuck = deployment({ replicas: 3, updatedReplicas: 1, conditions: [condition('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "web-1" has timed out progressing.')] });
    expect(healthOf(stuck)).toEqual({
      status: 'Failed',
      message: 'Deployment shop/web exceeded its progress deadline: ReplicaSet "web-1" has timed out progressing; check the new pods\' events and logs.',
    });
  });

  it('is Progressing before any status, with replicas defaulting to 1', () => {
    expect(healthOf(live('apps/v1', 'Deployment', { generation: 1, spec: {} }))).toMatchObject({ status: 'Progressing', message: 'Deployment shop/web has 0 of 1 replicas updated to the latest pod template.' });
  });

  it('is Ready with zero replicas', () => {
    expect(healthOf(deployment({}, 0)).status).toBe('Ready');
  });
});
