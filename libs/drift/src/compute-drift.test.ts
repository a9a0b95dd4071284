import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { computeDrift } from './compute-drift';
import { driftPolicyOf, driftRulesOf } from './policy';

const now = new Date('2026-11-30T12:00:00Z');

// managedFields as the API server writes them: Tidemark applied image, replicas and a label;
// the deployment controller defaulted the rest; someone ran kubectl scale afterwards.
const ourFields = {
  'f:metadata': { 'f:labels': { 'f:app': {} } },
  'f:spec': {
    'f:replicas': {},
    'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
  },
};

function deployment(replicas: number, image: string, managedFields: unknown[]): KubernetesManifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' }, managedFields },
    spec: {
      replicas,
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { spec: { containers: [{ name: 'app', image, imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' }] } },
    },
  };
}

const applyEntry = { manager: 'tidemark', operation: 'Apply', time: '2026-11-30T11:00:00Z', fieldsV1: ourFields };

describe('computeDrift', () => {
  it('finds nothing in an object full of server defaults that match', () => {
    const desired = deployment(2, 'nginx:1.27', [applyEntry]);
    const live = deployment(2, 'nginx:1.27', [applyEntry, { manager: 'kube-controller-manager', operation: 'Update', time: '2026-11-30T11:00:01Z', subresource: 'status', fieldsV1: { 'f:status': {} } }]);
    expect(computeDrift({ desired, live, fieldManager: 'tidemark', now })).toEqual([]);
  });

  it('names the field, both values and the manager that wrote the live value', () => {
    const desired = deployment(2, 'nginx:1.27', [applyEntry]);
    const scaled = { manager: 'kubectl', operation: 'Update', time: '2026-11-30T11:30:00Z', fieldsV1: { 'f:spec': { 'f:replicas': {} } } };
    const live = deployment(5, 'nginx:1.27', [{ ...applyEntry, fieldsV1: { ...ourFields, 'f:spec': { 'f:template': ourFields['f:spec']['f:template'] } } }, scaled]);
    expect(computeDrift({ desired, live, fieldManager: 'tidemark', now })).toEqual([
      { path: '/spec/replicas', desired: 2, live: 5, manager: 'kubectl', detectedAt: now.toISOString() },
    ]);
  });

  it('names Tidemark as the writer when only its own apply holds the live value (a new revision, not drift by another)', () => {
    // The deployment controller wrote status after Tidemark's apply: it is the newest other
    // manager, but it never touched spec.replicas, so a preview must not say it is overwritten.
    const status = { manager: 'kube-controller-manager', operation: 'Update', time: '2026-11-30T11:00:05Z', subresource: 'status', fieldsV1: { 'f:status': { 'f:replicas': {} } } };
    const desired = deployment(3, 'nginx:1.27', [applyEntry]);
    const live = deployment(2, 'nginx:1.27', [applyEntry, status]);
    expect(computeDrift({ desired, live, fieldManager: 'tidemark', now })).toEqual([
      { path: '/spec/replicas', desired: 3, live: 2, manager: 'tidemark', detectedAt: now.toISOString() },
    ]);
  });

  it('finds drift inside a keyed list item and writes the key readably', () => {
    const desired = deployment(2, 'nginx:1.27', [applyEntry]);
    const edit = { manager: 'kubectl-edit', operation: 'Update', time: '2026-11-30T11:40:00Z', fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { 'f:image': {} } } } } } } };
    const live = deployment(2, 'nginx:latest', [applyEntry, edit]);
    const [item] = computeDrift({ desired, live, fieldManager: 'tidemark', now });
    expect(item).toMatchObject({ path: '/spec/template/spec/containers/name=app/image', desired: 'nginx:1.27', live: 'nginx:latest', manager: 'kubectl-edit' });
  });

  it('ignores fields Tidemark does not own, even when they differ', () => {
    const desired = deployment(2, 'nginx:1.27', [{ ...applyEntry, fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } } }]);
    const live = deployment(7, 'nginx:1.27', [{ manager: 'horizontal-pod-autoscaler', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }]);
    expect(computeDrift({ desired, live, fieldManager: 'tidemark', now })).toEqual([]);
  });

  it('honours ignore rules by JSON pointer and by field manager', () => {
    const desired = deployment(2, 'nginx:1.27', [applyEntry]);
    const live = deployment(5, 'nginx:latest', [applyEntry, { manager: 'kubectl', operation: 'Update', time: '2026-11-30T11:30:00Z', fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { 'f:image': {} } } } } } } }]);
    expect(computeDrift({ desired, live, fieldManager: 'tidemark', now, rules: { ignorePointers: ['/spec/replicas'] } }).map((item) => item.path)).toEqual(['/spec/template/spec/containers/name=app/image']);
    expect(computeDrift({ desired, live, fieldManager: 'tidemark', now, rules: { ignoreManagers: ['kubectl'] } })).toEqual([]);
  });

  it('reports a deleted object as one item', () => {
    expect(computeDrift({ desired: deployment(2, 'a', [applyEntry]), live: undefined, fieldManager: 'tidemark', now })).toEqual([
      { path: '/', desired: 'present', live: 'deleted', manager: 'unknown', detectedAt: now.toISOString() },
    ]);
  });

  it('never copies a Secret value into a drift item', () => {
    const fields = { 'f:data': { 'f:password': {} } };
    const desired: KubernetesManifest = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', managedFields: [{ manager: 'tidemark', operation: 'Apply', fieldsV1: fields }] }, data: { password: 'c2VjcmV0LWE=' } };
    const live: KubernetesManifest = { ...desired, metadata: { ...desired.metadata, managedFields: [{ manager: 'kubectl', operation: 'Update', time: 'x', fieldsV1: fields }] }, data: { password: 'c2VjcmV0LWI=' } };
    const items = computeDrift({ desired, live, fieldManager: 'tidemark', now });
    expect(items).toEqual([{ path: '/data/password', desired: '[redacted]', live: 'changed', manager: 'kubectl', detectedAt: now.toISOString() }]);
    expect(JSON.stringify(items)).not.toMatch(/c2VjcmV0/);
  });

  it('sees a hand edit of a Secret that Git declares through stringData (owned as stringData, stored as data)', () => {
    // What the API server returns: the dry-run holds the stringData value merged into data
    // ("secret-a"), while Tidemark's managed fields name stringData.
    const ours = { manager: 'tidemark', operation: 'Apply', fieldsV1: { 'f:stringData': { 'f:password': {} } } };
    const desired: KubernetesManifest = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', managedFields: [ours] }, data: { password: 'c2VjcmV0LWE=' } };
    const edit = { manager: 'kubectl-edit', operation: 'Update', time: '2026-11-30T11:40:00Z', fieldsV1: { 'f:data': { 'f:password': {} } } };
    const live: KubernetesManifest = { ...desired, metadata: { ...desired.metadata, managedFields: [ours, edit] }, data: { password: 'c2VjcmV0LWI=' } };
    const items = computeDrift({ desired, live, fieldManager: 'tidemark', now });
    expect(items).toEqual([{ path: '/data/password', desired: '[redacted]', live: 'changed', manager: 'kubectl-edit', detectedAt: now.toISOString() }]);
    expect(JSON.stringify(items)).not.toMatch(/c2VjcmV0/);
    expect(computeDrift({ desired, live: { ...live, data: desired.data }, fieldManager: 'tidemark', now })).toEqual([]);
  });

  it('copies ConfigMap data, unless the ConfigMap opts into redaction by annotation', () => {
    const fields = { 'f:data': { 'f:greeting': {} } };
    const configMap = (annotations?: Record<string, string>): KubernetesManifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(annotations ? { annotations } : {}), managedFields: [{ manager: 'tidemark', operation: 'Apply', fieldsV1: fields }] }, data: { greeting: 'hello' } });
    const liveOf = (desired: KubernetesManifest): KubernetesManifest => ({ ...desired, metadata: { ...desired.metadata, managedFields: [{ manager: 'kubectl', operation: 'Update', time: 'x', fieldsV1: fields }] }, data: { greeting: 'bye' } });
    const plain = configMap();
    expect(computeDrift({ desired: plain, live: liveOf(plain), fieldManager: 'tidemark', now })).toEqual([{ path: '/data/greeting', desired: 'hello', live: 'bye', manager: 'kubectl', detectedAt: now.toISOString() }]);
    const private_ = configMap({ 'tidemark.dev/redact': 'true' });
    const items = computeDrift({ desired: private_, live: liveOf(private_), fieldManager: 'tidemark', now });
    expect(items).toEqual([{ path: '/data/greeting', desired: '[redacted]', live: 'changed', manager: 'kubectl', detectedAt: now.toISOString() }]);
    expect(JSON.stringify(items)).not.toMatch(/hello|bye/);
  });
});

describe('drift policy', () => {
  const object = (annotations?: Record<string, string>): KubernetesManifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(annotations ? { annotations } : {}) } });
  it('lets the annotation win over the kind default, which wins over heal', () => {
    expect(driftPolicyOf(object())).toBe('heal');
    expect(driftPolicyOf(object(), { ConfigMap: 'report' })).toBe('report');
    expect(driftPolicyOf(object({ 'tidemark.dev/drift': 'heal' }), { ConfigMap: 'report' })).toBe('heal');
  });
  it('adds the object\'s ignore annotation to the configured rules', () => {
    expect(driftRulesOf(object({ 'tidemark.dev/drift-ignore': '/data/a, /data/b' }), { ignorePointers: ['/metadata/labels'] }).ignorePointers).toEqual(['/metadata/labels', '/data/a', '/data/b']);
  });
});
