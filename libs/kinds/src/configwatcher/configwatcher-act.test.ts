import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '../kind-plugin';
import { InMemoryClusterActions } from '../testing/in-memory-cluster-actions';
import { configMapHash } from './configmap-hash';
import { actOnConfigWatcher } from './configwatcher-act';
import type { ConfigWatcherSpec, ConfigWatcherStatus } from './configwatcher-types';
import { restartedAtAnnotation, restartHashAnnotation } from './restart-workloads';

const namespace = 'operator-test';
const now = new Date('2026-11-30T04:00:00.000Z');

function configWatcher(spec: Partial<ConfigWatcherSpec> = {}): KubernetesManifest & { spec: ConfigWatcherSpec } {
  return {
    apiVersion: 'k8spatterns.com/v1',
    kind: 'ConfigWatcher',
    metadata: { name: 'webapp-config-watcher', namespace },
    spec: { configMap: 'webapp-config', podSelector: { matchLabels: { app: 'webapp' } }, ...spec },
  };
}

function configMap(message: string): KubernetesManifest {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'webapp-config', namespace }, data: { message } };
}

function pod(name: string, labels: Record<string, string>): KubernetesManifest {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels } };
}

function deployment(name: string, templateLabels: Record<string, string>): KubernetesManifest {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace }, spec: { template: { metadata: { labels: templateLabels } } } };
}

async function act(cluster: InMemoryClusterActions, previousStatus: Partial<ConfigWatcherStatus>, spec: Partial<ConfigWatcherSpec> = {}) {
  return actOnConfigWatcher({ object: configWatcher(spec), previousStatus, cluster, now });
}

describe('actOnConfigWatcher', () => {
  it('records the hash on first sight and restarts nothing', async () => {
    const cluster = new InMemoryClusterActions([configMap('hello'), pod('webapp-1', { app: 'webapp' })]);
    const result = await act(cluster, {});
    expect(result.status).toEqual({ lastConfigMapHash: configMapHash(configMap('hello')), restarts: 0 });
    expect(result.conditions?.[0]).toMatchObject({ type: 'ConfigMapWatched', status: 'True', reason: 'HashRecorded' });
    expect(cluster.deleted).toEqual([]);
  });

  it('deletes only the pods matching the selector when the data changed (DeletePods)', async () => {
    const cluster = new InMemoryClusterActions([configMap('changed'), pod('webapp-1', { app: 'webapp' }), pod('webapp-2', { app: 'webapp', tier: 'web' }), pod('other', { app: 'other' })]);
    const result = await act(cluster, { lastConfigMapHash: configMapHash(configMap('hello')), restarts: 2 });
    expect(cluster.deleted.map((object) => object.metadata.name)).toEqual(['webapp-1', 'webapp-2']);
    expect(result.status).toEqual({ lastConfigMapHash: configMapHash(configMap('changed')), restarts: 3, lastRestartTime: '2026-11-30T04:00:00.000Z' });
    expect(result.conditions?.[0]).toMatchObject({ status: 'True', reason: 'PodsDeleted', message: expect.stringContaining('deleted 2 pods matching app=webapp') });
  });

  it('restarts nothing when replayed with the same hash (level-triggered)', async () => {
    const cluster = new InMemoryClusterActions([configMap('changed'), pod('webapp-1', { app: 'webapp' })]);
    const first = await act(cluster, { lastConfigMapHash: configMapHash(configMap('hello')), restarts: 0 });
    cluster.put(pod('webapp-2', { app: 'webapp' }));
    const replay = await act(cluster, first.status);
    expect(cluster.deleted.map((object) => object.metadata.name)).toEqual(['webapp-1']);
    expect(replay.status).toEqual(first.status);
    expect(replay.conditions?.[0]).toMatchObject({ reason: 'Unchanged' });
  });

  it('says the ConfigMap healed back to Git when it changed and came back, and restarts nothing', async () => {
    const atVersion = (message: string, resourceVersion: string, annotations?: Record<string, string>): KubernetesManifest => ({ ...configMap(message), metadata: { name: 'webapp-config', namespace, resourceVersion, ...(annotations ? { annotations } : {}) } });
    const cluster = new InMemoryClusterActions([atVersion('hello', '10', { 'tidemark.dev/owner': 'repo:core/ConfigMap/operator-test/webapp-config' }), pod('webapp-1', { app: 'webapp' })]);
    const recorded = await act(cluster, {});
    expect(recorded.status).toMatchObject({ lastConfigMapResourceVersion: '10' });
    // Edited by hand (version 11), then healed back to Git's content by Tidemark (version 12).
    cluster.put(atVersion('hello', '12', { 'tidemark.dev/owner': 'repo:core/ConfigMap/operator-test/webapp-config' }));
    const healed = await act(cluster, recorded.status);
    expect(cluster.deleted).toEqual([]);
    expect(healed.conditions?.[0]).toMatchObject({ reason: 'HealedBack', message: "ConfigMap operator-test/webapp-config healed back to Git's content; no restart needed." });
    // A resync later says the same, not "unchanged".
    expect((await act(cluster, healed.status)).conditions?.[0]).toMatchObject({ reason: 'HealedBack' });
    // Not Git's: the message does not claim Tidemark healed it.
    cluster.put(atVersion('hello', '13'));
    expect((await act(cluster, healed.status)).conditions?.[0]?.message).toMatch(/changed and came back to the content the pods last restarted with/);
  });

  it('ignores metadata-only changes to the ConfigMap', async () => {
    const labelled = { ...configMap('hello'), metadata: { name: 'webapp-config', namespace, labels: { edited: 'by-hand' }, resourceVersion: '42' } };
    const cluster = new InMemoryClusterActions([labelled, pod('webapp-1', { app: 'webapp' })]);
    await act(cluster, { lastConfigMapHash: configMapHash(configMap('hello')), restarts: 0 });
    expect(cluster.deleted).toEqual([]);
  });

  it('reports a missing ConfigMap as a condition naming it, without restarting', async () => {
    const cluster = new InMemoryClusterActions([pod('webapp-1', { app: 'webapp' })]);
    const previous = { lastConfigMapHash: 'abc', restarts: 1 };
    const result = await act(cluster, previous);
    expect(result.status).toEqual(previous);
    expect(result.conditions?.[0]).toMatchObject({ status: 'False', reason: 'ConfigMapMissing', message: 'ConfigMap operator-test/webapp-config does not exist; create it or change spec.configMap.' });
    expect(cluster.deleted).toEqual([]);
  });

  it('refuses to restart with an empty selector and keeps the old hash so the change is not lost', async () => {
    const cluster = new InMemoryClusterActions([configMap('changed'), pod('webapp-1', { app: 'webapp' })]);
    const result = await act(cluster, { lastConfigMapHash: 'old', restarts: 0 }, { podSelector: { matchLabels: {} } });
    expect(cluster.deleted).toEqual([]);
    expect(result.status.lastConfigMapHash).toBe('old');
    expect(result.conditions?.[0]).toMatchObject({ status: 'False', reason: 'EmptySelector' });
  });

  it('patches restartedAt on the Deployments whose template matches (RolloutRestart)', async () => {
    const cluster = new InMemoryClusterActions([configMap('changed'), deployment('webapp', { app: 'webapp' }), deployment('other', { app: 'other' }), pod('webapp-1', { app: 'webapp' })]);
    const result = await act(cluster, { lastConfigMapHash: 'old', restarts: 0 }, { strategy: 'RolloutRestart' });
    const hash = configMapHash(configMap('changed'));
    expect(cluster.patches).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'webapp', namespace },
        spec: { template: { metadata: { annotations: { [restartedAtAnnotation]: '2026-11-30T04:00:00.000Z', [restartHashAnnotation]: hash } } } },
      },
    ]);
    expect(cluster.deleted).toEqual([]);
    expect(result.status).toMatchObject({ lastConfigMapHash: hash, restarts: 1 });
    expect(result.conditions?.[0]).toMatchObject({ reason: 'DeploymentsRestarted' });
  });

  it('does not restart a Deployment again after an interrupted run already restarted it for this hash', async () => {
    const cluster = new InMemoryClusterActions([configMap('changed'), deployment('webapp', { app: 'webapp' })]);
    await act(cluster, { lastConfigMapHash: 'old', restarts: 0 }, { strategy: 'RolloutRestart' });
    // The status write was lost: the next run still sees the old hash.
    await act(cluster, { lastConfigMapHash: 'old', restarts: 0 }, { strategy: 'RolloutRestart' });
    expect(cluster.patches).toHaveLength(1);
  });
});
