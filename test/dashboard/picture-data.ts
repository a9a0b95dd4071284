// Records a new user would see after a first push: six objects of one source (one from a file that names
// no namespace, two rendered by a Kustomize overlay), a WebApp with what it rendered, drift on its ConfigMap, its ReplicaSet and Pod, a source
// record with a broken file, a fetched commit and when it went live. Shared by the page and browser tests.
import { writePreviewReport } from '@tidemark/preview';
import type { DashboardFixture } from './dashboard-fixture';
import { seededStatus, stalledConditions } from './dashboard-fixture';

export const revision = 'a'.repeat(40);
export const commitTime = new Date(Date.now() - 120_000);
export const uid = { deployment: 'uid-deploy-1', replicaSet: 'uid-rs-1', pod: 'uid-pod-1' };

/** seedPictures writes the records; the dashboard learns of them by pub/sub. */
export async function seedPictures(fixture: DashboardFixture): Promise<void> {
  const { store } = fixture;
  // Six objects of one source, one of them from a file that names no namespace (key `_`, record `default`).
  for (const name of ['a', 'b']) await store.put(seededStatus('shared', 'ConfigMap', 'shop', name));
  // Two of them rendered by a Kustomize overlay: the source's one render unit.
  for (const name of ['c', 'd']) await store.put(seededStatus('shared', 'ConfigMap', 'shop', name, { renderUnit: { renderer: 'kustomize', folder: 'apps/overlays/prod' } }));
  await store.put({ ...seededStatus('shared', 'ConfigMap', 'default', 'carts'), objectKey: 'core/ConfigMap/_/carts', generation: undefined, observedGeneration: undefined });
  await store.put(seededStatus('shared', 'WebApp', 'shop', 'storefront', {
    resources: [
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'storefront', uid: uid.deployment, action: 'unchanged', health: 'Progressing', message: 'Deployment shop/storefront has 1 of 2 replicas available.' },
      { apiVersion: 'v1', kind: 'Service', namespace: 'shop', name: 'storefront', uid: 'uid-svc', action: 'unchanged', health: 'Ready' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'storefront-config', uid: 'uid-cm', action: 'configured', health: 'Ready' },
    ],
    drift: [{ object: 'ConfigMap shop/storefront-config', path: '/data/greeting', desired: 'hello', live: 'bye', manager: 'kubectl-edit', detectedAt: new Date().toISOString() }],
  }));
  await store.put(seededStatus('edge', 'ConfigMap', 'shop', 'a', { conditions: stalledConditions }));
  await store.writeLiveChildren('shared', new Map([[uid.deployment, [
    { kind: 'ReplicaSet', namespace: 'shop', name: 'storefront-6d4b', uid: uid.replicaSet, ownerUid: uid.deployment, health: 'Progressing', message: 'ReplicaSet shop/storefront-6d4b has 1 of 2 replicas available.' },
    { kind: 'Pod', namespace: 'shop', name: 'storefront-6d4b-x1', uid: uid.pod, ownerUid: uid.replicaSet, health: 'Ready', message: 'Pod shop/storefront-6d4b-x1 is ready.' },
  ]]]));
  await fixture.redis.hset(fixture.store.keys.sourceStatus('main-repo'), {
    revision, polledAt: new Date().toISOString(), durationMs: 42, fetchedObjects: 0, sourceErrors: 1, state: 'ok', ref: 'branch main', declaredObjects: 6,
    commitMessage: 'shop: two replicas', commitAuthor: 'Ann Operator', commitTime: commitTime.toISOString(),
    problems: JSON.stringify([{ path: 'apps/broken.yaml', line: 7, code: 'ParseFailed', message: 'apps/broken.yaml line 7: a mapping was expected.' }]),
  });
  await fixture.redis.lpush(fixture.store.keys.sourceCommits('main-repo'), JSON.stringify({ revision, message: 'shop: two replicas', author: 'Ann Operator', time: commitTime.toISOString(), fetchedAt: new Date(commitTime.getTime() + 20_000).toISOString() }));
  await store.recordRevisionLive('main-repo', revision, 'shared', new Date(commitTime.getTime() + 60_000));
  await writePreviewReport(fixture.redis, fixture.store.keys, {
    source: 'main-repo', ref: 'feature/blue', state: 'done', revision: 'b'.repeat(40), baseRevision: revision, requestedAt: new Date().toISOString(), finishedAt: new Date().toISOString(),
    changes: [
      { cluster: 'shared', objectKey: 'core/ConfigMap/shop/c', path: 'apps/c.yaml', line: 1, apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'c', action: 'configured',
        fields: [{ path: '/data/color', live: 'red', desired: 'green', overwrites: 'kubectl-edit' }, { path: '/data/size', desired: 'L' }] },
      { cluster: 'shared', objectKey: 'core/Secret/shop/db', path: 'apps/db.yaml', line: 1, apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'db', action: 'configured', fields: [{ path: '/data/password', live: '[redacted]', desired: '[redacted]' }] },
      { cluster: 'edge', objectKey: 'core/Service/shop/bad', path: 'apps/bad.yaml', line: 1, apiVersion: 'v1', kind: 'Service', namespace: 'shop', name: 'bad', action: 'invalid', message: 'Service "bad" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive' },
    ],
    blastRadius: { clusters: ['edge', 'shared'], namespaces: ['shop'], kinds: ['ConfigMap', 'Secret', 'Service'], counts: { created: 0, configured: 2, unchanged: 0, deleted: 0, invalid: 1, skipped: 0 }, flagged: [] },
  });
}
