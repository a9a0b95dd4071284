// Units rendered for the cluster they go to, on two real API servers. A chart renders a
// ServiceMonitor only where monitoring.coreos.com/v1 is served, with each server's own version in
// .Capabilities, and its namespace-less objects in the release namespace; when the CRD is installed
// on the second server later, the unit renders again and the ServiceMonitor appears there too. One
// Kustomize overlay gets a different Ingress host, labels, annotation and resource limit per cluster.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ClusterConnection, createObject, getObject, readCapabilities, waitForEstablished } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { renderToolsDir, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { renderTools } from '../render/render-fixture';

const namespace = 'capable';
const secret = `hook-${randomUUID()}`;
let planes: ControlPlane[];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
const connections = new Map<string, ClusterConnection>();

const serviceMonitorCrd: KubernetesManifest = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'servicemonitors.monitoring.coreos.com' },
  spec: {
    group: 'monitoring.coreos.com', scope: 'Namespaced',
    names: { kind: 'ServiceMonitor', listKind: 'ServiceMonitorList', plural: 'servicemonitors', singular: 'servicemonitor' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

async function installServiceMonitorCrd(cluster: string): Promise<void> {
  const connection = connections.get(cluster)!;
  await createObject(connection, serviceMonitorCrd);
  await waitForEstablished(connection, ['servicemonitors.monitoring.coreos.com']);
}

/** Live is the part of a live object the suite reads. */
interface Live {
  metadata: { namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec: {
    endpoints?: Array<{ port: string }>;
    selector?: { matchLabels: Record<string, string> };
    rules: Array<{ host: string }>;
    template: { spec: { containers: Array<{ resources?: { limits?: Record<string, string> } }> } };
  };
}

async function live(cluster: string, apiVersion: string, kind: string, name: string): Promise<Live | undefined> {
  return await getObject(connections.get(cluster)!, { apiVersion, kind, namespace, name }).catch(() => undefined) as Live | undefined;
}

const chart = {
  'Chart.yaml': 'apiVersion: v2\nname: mon\nversion: 0.1.0\nkubeVersion: ">=1.23.0-0"\n',
  'templates/settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\n  labels:\n    app.kubernetes.io/managed-by: {{ .Release.Service }}\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  namespace: {{ .Release.Namespace | quote }}\n',
  'templates/servicemonitor.yaml': '{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor" }}\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  selector:\n    matchLabels:\n      app: mon\n  endpoints:\n    - port: http\n{{- end }}\n',
  'tidemark-render.yaml': `helm:\n  releaseName: mon\n  namespace: ${namespace}\n`,
};

const overlay = {
  'kustomization.yaml': stringify({ namespace, resources: ['ingress.yaml', 'deployment.yaml'] }),
  'ingress.yaml': stringify({
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' },
    spec: { rules: [{ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  }),
  'deployment.yaml': stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  }),
  'tidemark-render.yaml': stringify({
    kustomize: {
      labels: { 'example.com/region': '${cluster.labels.region}' },
      annotations: { 'example.com/owner': 'team-${cluster.name}' },
      patches: [
        { target: { kind: 'Ingress', name: 'web' }, patch: '- op: replace\n  path: /spec/rules/0/host\n  value: "${cluster.variables.host}"\n' },
        { patch: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          resources:\n            limits:\n              memory: "${cluster.variables.memory}"\n' },
      ],
    },
  }),
};

beforeAll(async () => {
  await renderTools();
  planes = await startControlPlanes(2, 'capable');
  const clusters = [
    { name: 'monitored', labels: { region: 'eu' }, variables: { host: 'shop.eu.example.com', memory: '256Mi' }, kubeconfig: planes[0]!.kubeconfigPath },
    { name: 'plain', labels: { region: 'us' }, variables: { host: 'shop.us.example.com', memory: '512Mi' }, kubeconfig: planes[1]!.kubeconfigPath },
  ];
  clusters.forEach((cluster, index) => connections.set(cluster.name, ClusterConnection.connect({ cluster: cluster.name, kubeconfig: planes[index]!.kubeconfig })));
  await installServiceMonitorCrd('monitored');

  workDir = await mkdtemp(join(tmpdir(), 'tidemark-capable-'));
  git = await startGitServer();
  const url = await git.createRepository('capable');
  repo = await git.workingCopy('capable');
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  for (const [file, text] of Object.entries(chart)) await repo.write(`charts/mon/${file}`, text);
  for (const [file, text] of Object.entries(overlay)) await repo.write(`apps/web/${file}`, text);
  await repo.commitAndPush('a chart that looks at the cluster, and one overlay for two clusters');

  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix: `capable-${randomUUID().slice(0, 8)}` },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'capable', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: clusters.map(({ name, labels, variables, kubeconfig }) => ({ name, labels, variables, kubeconfig })),
    http: { port: 0, host: '127.0.0.1' },
    render: { toolsDir: renderToolsDir },
    webhooks: [{ source: 'capable', provider: 'github', secret: { env: 'CAPABLE_SECRET' } }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), CAPABLE_SECRET: secret }), createLogger('error'));
});

afterAll(async () => {
  await reconciler?.stop();
  connections.forEach((connection) => connection.close());
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('Helm sees the cluster it renders for', () => {
  it('renders the ServiceMonitor on the cluster that serves monitoring.coreos.com/v1 and not on the other', async () => {
    await expect.poll(() => live('monitored', 'monitoring.coreos.com/v1', 'ServiceMonitor', 'mon'), { timeout: 90_000 }).toMatchObject({ spec: { endpoints: [{ port: 'http' }] } });
    await expect.poll(() => live('plain', 'v1', 'ConfigMap', 'mon-settings'), { timeout: 60_000 }).toBeDefined();
    expect(await getObject(connections.get('plain')!, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'servicemonitors.monitoring.coreos.com' })).toBeUndefined();
    const status = await reconciler.statusStore.get('plain', `monitoring.coreos.com/ServiceMonitor/${namespace}/mon`);
    expect(status?.conditions?.find((condition) => condition.type === 'Ready')?.status).not.toBe('True');
  });

  it('passes each cluster\'s own version, puts namespace-less objects in the release namespace and keeps the chart\'s labels', async () => {
    for (const cluster of ['monitored', 'plain']) {
      const { kubeVersion } = await readCapabilities(connections.get(cluster)!);
      const settings = await live(cluster, 'v1', 'ConfigMap', 'mon-settings');
      expect(settings?.data).toEqual({ kube: kubeVersion, namespace });
      expect(settings?.metadata.namespace).toBe(namespace);
      expect(settings?.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    }
  });

  it('renders the unit again when the CRD is established on the other cluster later', async () => {
    await installServiceMonitorCrd('plain');
    await expect.poll(() => live('plain', 'monitoring.coreos.com/v1', 'ServiceMonitor', 'mon'), { timeout: 90_000 }).toMatchObject({ spec: { selector: { matchLabels: { app: 'mon' } } } });
  });
});

describe('any per-cluster value reaches a Kustomize unit', () => {
  it('gives each cluster its own Ingress host, labels, annotation and memory limit from one overlay', async () => {
    const ingress = async (cluster: string) => {
      const object = await live(cluster, 'networking.k8s.io/v1', 'Ingress', 'web');
      return object && { host: object.spec.rules[0]!.host, region: object.metadata.labels?.['example.com/region'], owner: object.metadata.annotations?.['example.com/owner'] };
    };
    await expect.poll(() => ingress('monitored'), { timeout: 60_000 }).toEqual({ host: 'shop.eu.example.com', region: 'eu', owner: 'team-monitored' });
    await expect.poll(() => ingress('plain'), { timeout: 60_000 }).toEqual({ host: 'shop.us.example.com', region: 'us', owner: 'team-plain' });
    const memory = async (cluster: string) => (await live(cluster, 'apps/v1', 'Deployment', 'web'))?.spec.template.spec.containers[0]!.resources?.limits?.memory;
    await expect.poll(() => memory('monitored'), { timeout: 30_000 }).toBe('256Mi');
    await expect.poll(() => memory('plain'), { timeout: 30_000 }).toBe('512Mi');
  });

  it('keeps the selector as the overlay wrote it (labels go on objects, not on selectors)', async () => {
    const deployment = await live('plain', 'apps/v1', 'Deployment', 'web');
    expect(deployment?.spec.selector).toEqual({ matchLabels: { app: 'web' } });
  });
});
