import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { KubernetesManifest } from '@tidemark/contracts';
import { loadClusterCredentials } from './cluster-credentials';
import { parseClusterObject } from './parse-cluster-object';

const clusterObject = (spec: unknown, name = 'edge'): KubernetesManifest => ({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Cluster', metadata: { name, namespace: 'tidemark', generation: 4 }, spec } as KubernetesManifest);
const kubeconfig = (user: Record<string, unknown>) => stringify({
  apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
  clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
  users: [{ name: 'u', user }],
  contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
});
const secretData = (text: string, key = 'kubeconfig') => ({ [key]: Buffer.from(text).toString('base64') });
const declaration = parseClusterObject(clusterObject({ labels: { env: 'prod' }, kubeconfigSecretRef: { name: 'edge-kubeconfig' } }));

describe('parseClusterObject', () => {
  it('reads labels and a Secret in the Cluster\'s own namespace, with the default key', () => {
    expect(declaration).toEqual({
      name: 'edge', object: { namespace: 'tidemark', name: 'edge', generation: 4 }, labels: { env: 'prod' },
      credentials: { secret: { namespace: 'tidemark', name: 'edge-kubeconfig', key: 'kubeconfig' } }, allowExecPlugins: false, prune: false,
    });
  });

  it('refuses a spec with both ways in, or neither, or an unknown field, naming the Cluster and field', () => {
    expect(() => parseClusterObject(clusterObject({ inCluster: true, kubeconfigSecretRef: { name: 'x' } }))).toThrow('Cluster tidemark/edge: spec: set exactly one of kubeconfigSecretRef or inCluster: true.');
    expect(() => parseClusterObject(clusterObject({}))).toThrow(/exactly one/);
    expect(() => parseClusterObject(clusterObject({ inCluster: true, kubeconfig: '/etc/passwd' }))).toThrow(/Cluster tidemark\/edge: spec/);
    expect(() => parseClusterObject(clusterObject({ inCluster: true }, 'Edge'))).toThrow(/metadata.name must be a DNS label/);
  });
});

describe('loadClusterCredentials', () => {
  it('loads an inline kubeconfig, and a rotation changes the fingerprint while the same content keeps it', () => {
    const first = loadClusterCredentials(declaration, secretData(kubeconfig({ token: 'one' })), false);
    const again = loadClusterCredentials(declaration, secretData(kubeconfig({ token: 'one' })), false);
    const rotated = loadClusterCredentials(declaration, secretData(kubeconfig({ token: 'two' })), false);
    expect(first.kubeconfig.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(again.fingerprint).toBe(first.fingerprint);
    expect(rotated.fingerprint).not.toBe(first.fingerprint);
    expect(first.fingerprint).not.toContain('one');
  });

  it('refuses an exec plugin, naming the Cluster, the Secret, its key and the field, never the token', () => {
    const hostile = kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', 'id'] } });
    expect(() => loadClusterCredentials(declaration, secretData(hostile), false)).toThrow(/Cluster tidemark\/edge: spec.kubeconfigSecretRef \(Secret tidemark\/edge-kubeconfig, key kubeconfig\).*users\[u\]\.exec runs a credential plugin/);
  });

  it('honours spec.allowExecPlugins only where the operator allows it, and says so', () => {
    const allowing = parseClusterObject(clusterObject({ kubeconfigSecretRef: { name: 'edge-kubeconfig' }, allowExecPlugins: true }));
    const hostile = kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh' } });
    expect(() => loadClusterCredentials(allowing, secretData(hostile), false)).toThrow(/spec.allowExecPlugins is not honoured/);
    expect(loadClusterCredentials(allowing, secretData(hostile), true).kubeconfig.getCurrentUser()?.exec).toBeDefined();
  });

  it('refuses a kubeconfig that names a file on the reconciler\'s disk, and a missing Secret or key', () => {
    expect(() => loadClusterCredentials(declaration, secretData(kubeconfig({ 'token-file': '/var/run/secrets/kubernetes.io/serviceaccount/token' })), false)).toThrow(/users\[u\]\.token-file names a file/);
    expect(() => loadClusterCredentials(declaration, undefined, false)).toThrow(/Secret tidemark\/edge-kubeconfig, key kubeconfig\): the Secret or its key does not exist/);
    expect(() => loadClusterCredentials(declaration, secretData('x', 'other'), false)).toThrow(/does not exist/);
  });
});
