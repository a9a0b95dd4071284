import { describe, expect, it } from 'vitest';
import type { Condition, ObjectStatus } from '@tidemark/contracts';
import { objectFacts } from './object-facts';
import { clusterFact } from './cluster-facts';
import { sourceFact } from './source-facts';

const at = '2026-12-01T00:00:00.000Z';
const condition = (type: string, status: Condition['status'], reason: string, message = `${reason} happened.`): Condition => ({ type, status, reason, message, observedGeneration: 1, lastTransitionTime: at });

function record(conditions: Condition[]): ObjectStatus {
  return { cluster: 'prod', objectKey: 'tidemark.dev/WebApp/shop/web', source: 'apps', apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', namespace: 'shop', name: 'web', conditions, inventory: [], updatedAt: at };
}

/** readiness returns the readiness fact's state and what it would send after `previous`. */
function readiness(conditions: Condition[], previous?: string) {
  const fact = objectFacts(record(conditions)).find((entry) => entry.key.endsWith('|ready'));
  return fact && { state: fact.state, event: fact.eventFor(previous) };
}

describe('objectFacts', () => {
  it('reads Ready, Progressing, NotReady and Stalled from the conditions, each with its severity', () => {
    expect(readiness([condition('Ready', 'False', 'HealthCheckPending')])).toMatchObject({ state: 'Progressing:HealthCheckPending', event: { reason: 'Progressing', severity: 'info' } });
    expect(readiness([condition('Ready', 'False', 'ApplyFailed', 'The API server refused it.')])).toMatchObject({
      state: 'NotReady:ApplyFailed',
      event: { reason: 'NotReady', severity: 'error', message: 'WebApp shop/web on cluster prod is not Ready (ApplyFailed): The API server refused it.', cluster: 'prod', source: 'apps', involvedObject: { kind: 'WebApp', namespace: 'shop', name: 'web' } },
    });
    expect(readiness([condition('Ready', 'False', 'ValidationFailed'), condition('Stalled', 'True', 'ValidationFailed')])).toMatchObject({ state: 'Stalled:ValidationFailed', event: { reason: 'Stalled', severity: 'error' } });
    expect(readiness([condition('Ready', 'True', 'ReconciliationSucceeded')], 'NotReady:ApplyFailed')).toMatchObject({ state: 'Ready', event: { reason: 'Ready', severity: 'info' } });
  });

  it('reads a dependency\'s failure as this object waiting, not as its own error (the verdict every reader shares)', () => {
    expect(readiness([condition('Ready', 'False', 'DependencyFailed'), condition('Reconciling', 'False', 'DependencyFailed')])).toMatchObject({ state: 'Progressing:DependencyFailed', event: { reason: 'Progressing', severity: 'info' } });
  });

  it('says nothing of a first sight of a Ready object, nor of objects on an unavailable cluster', () => {
    expect(readiness([condition('Ready', 'True', 'ReconciliationSucceeded')])).toEqual({ state: 'Ready', event: undefined });
    expect(readiness([condition('Ready', 'Unknown', 'ClusterUnavailable')])).toBeUndefined();
  });

  it('notifies drift detected, drift the pipeline corrected, and drift gone by itself; not a clean first sight', () => {
    const drift = (conditions: Condition[], previous?: string) => {
      const fact = objectFacts(record(conditions)).find((entry) => entry.key.endsWith('|drift'))!;
      return { state: fact.state, event: fact.eventFor(previous) };
    };
    expect(drift([condition('Drifted', 'True', 'DriftDetected', '1 field drifted: /spec/replicas.')])).toMatchObject({ state: 'Drifted', event: { reason: 'DriftDetected', severity: 'error' } });
    expect(drift([condition('Drifted', 'False', 'NoDrift', 'Healed: 1 field: /spec/replicas.')])).toMatchObject({ state: expect.stringMatching(/^Healed:/), event: { reason: 'DriftHealed', severity: 'info' } });
    expect(drift([condition('Drifted', 'False', 'NoDrift', 'The cluster matches Git.')], 'Drifted')).toMatchObject({ state: 'InSync', event: { reason: 'DriftHealed' } });
    expect(drift([condition('Drifted', 'False', 'NoDrift', 'The cluster matches Git.')])).toEqual({ state: 'InSync', event: undefined });
  });

  it('cuts messages and scrubs URL credentials that a writer left in them', () => {
    const long = `fetch https://user:tok3n@git.example.com/a.git failed ${'x'.repeat(5000)}`;
    const event = readiness([condition('Ready', 'False', 'FetchFailed', long)])?.event;
    expect(event?.message.length).toBeLessThanOrEqual(1000);
    expect(event?.message).not.toContain('tok3n');
    expect(event?.message).toContain('https://***@git.example.com');
  });
});

describe('clusterFact and sourceFact', () => {
  it('a cluster: Unavailable is an error, Available is news only after it', () => {
    const down = clusterFact({ cluster: 'prod', state: 'Unavailable', since: at, lastCheck: at, message: 'connect ECONNREFUSED', queuePaused: true })!;
    expect(down.eventFor('Available')).toMatchObject({ reason: 'ClusterUnavailable', severity: 'error', cluster: 'prod', involvedObject: { kind: 'Cluster', name: 'prod' } });
    const up = clusterFact({ cluster: 'prod', state: 'Available', since: at, lastCheck: at, queuePaused: false })!;
    expect(up.eventFor('Unavailable')).toMatchObject({ reason: 'ClusterAvailable', severity: 'info' });
    expect(up.eventFor(undefined)).toBeUndefined();
    expect(clusterFact({ cluster: 'prod', state: 'Unknown', since: at, lastCheck: at, queuePaused: false })).toBeUndefined();
  });

  it('a source: a failed poll and unreadable files are errors, ok after them is news', () => {
    expect(sourceFact('apps', { state: 'error', error: 'commit abc is not signed by a trusted key', polledAt: at })?.eventFor(undefined)).toMatchObject({ reason: 'SourceFailed', severity: 'error', source: 'apps', message: 'Source apps could not be polled: commit abc is not signed by a trusted key' });
    expect(sourceFact('apps', { state: 'degraded', sourceErrors: 2, problems: [{ path: 'app/kustomization.yaml', code: 'RenderFailed', message: 'kustomize build failed' }] })?.eventFor(undefined)).toMatchObject({ reason: 'SourceDegraded', message: expect.stringContaining('app/kustomization.yaml: kustomize build failed') });
    expect(sourceFact('apps', { state: 'ok' })?.eventFor('error')).toMatchObject({ reason: 'SourceRecovered', severity: 'info' });
    expect(sourceFact('apps', { state: 'ok' })?.eventFor(undefined)).toBeUndefined();
    expect(sourceFact('apps', { state: 'suspended' })).toBeUndefined();
  });
});
