// `tidemark install`, `check --pre`, `check` and `uninstall`, the real binary, against a full control plane
// of its own (kube-apiserver, controllers, scheduler): install applies CRDs that the shared plane's
// suites use, so it gets a cluster to itself. Stand-ins, named where they act: KWOK's simulated nodes
// run the pods (no container starts, so "ready" is KWOK's), the Redis URL names a host nobody serves,
// and the test conversion webhook plays the reconciler filling in the WebApp CRD's webhook.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyObject, ClusterConnection, getObject } from '@tidemark/cluster';
import { withConversion } from '@tidemark/conversion';
import { webAppPlugin } from '@tidemark/kinds';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { startTestConversionWebhook, type TestConversionWebhook } from '../support/conversion-webhook';
import { runTidemark } from './run-tidemark';

const namespace = 'tidemark-install';
const redisPassword = 'RedisPass4Install';
let plane: ControlPlane;
let admin: ClusterConnection;
let scratch: string;
let conversion: TestConversionWebhook | undefined;
const common = () => ['--kubeconfig', plane.kubeconfigPath, '-n', namespace];
const chartValues = () => ['-f', join(scratch, 'values.yaml'), '--redis-url-file', join(scratch, 'redis-url')];

beforeAll(async () => {
  plane = await startControlPlane({ name: 'install', controllers: true });
  admin = ClusterConnection.connect({ cluster: 'install', kubeconfig: plane.kubeconfig, fieldManager: 'install-test' });
  scratch = await mkdtemp(join(tmpdir(), 'tidemark-install-test-'));
  // One replica each keeps the simulated cluster small; no config-file source, Source objects served.
  await writeFile(join(scratch, 'values.yaml'), 'reconciler: {replicas: 1}\ndashboard: {replicas: 1}\nsourceObjects: {enabled: true}\nconfig:\n  sources: []\n  clusters: [{name: in-cluster, inCluster: true}]\n');
  // Stand-in: a Redis of the user's that nothing serves here; what matters is where its password goes.
  await writeFile(join(scratch, 'redis-url'), `redis://default:${redisPassword}@redis.example.internal:6379\n`);
});
afterAll(async () => {
  admin?.close();
  await conversion?.stop();
  await plane?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('tidemark install --export', () => {
  it('prints the manifests without a cluster, with no Secret and no password in them', async () => {
    const run = await runTidemark(['install', '--export', '-n', namespace, ...chartValues()]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^kind: CustomResourceDefinition$/m);
    expect(run.stdout).toMatch(/^kind: Deployment$/m);
    expect(run.stdout).not.toMatch(/^kind: Secret$/m);
    expect(run.stdout).not.toContain(redisPassword);
    expect(run.stdout).toContain('redis://default:$(TIDEMARK_REDIS_PASSWORD)@redis.example.internal:6379');
    expect(run.stdout).toContain(`#   Secret ${namespace}/tidemark-redis-auth: password`);
  });

  it('refuses a Redis URL that is not redis:// and a values file the chart refuses, naming them', async () => {
    await writeFile(join(scratch, 'bad-url'), 'http://redis.example.internal:6379');
    const url = await runTidemark(['install', '--export', '--redis-url-file', join(scratch, 'bad-url')]);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('the Redis URL must be redis:// or rediss://');
    const chart = await runTidemark(['install', '--export', '--set', 'rbac.extraResources[0].apiGroups[0]=*', '--set', 'rbac.extraResources[0].resources[0]=jobs']);
    expect(chart.code).toBe(2);
    expect(chart.stderr).toMatch(/the chart does not render with these values: .*wildcards are not allowed/);
  });
});

describe('tidemark check --pre', () => {
  it('passes for the cluster admin and names the right a limited user lacks', async () => {
    const ok = await runTidemark(['check', '--pre', ...common(), ...chartValues()]);
    expect(ok.stdout).toContain('✓ rights:');
    expect(ok.stdout).toContain('all checks passed');
    expect(ok.code).toBe(0);

    const limited = await limitedKubeconfig();
    const refused = await runTidemark(['check', '--pre', '--kubeconfig', limited, '-n', namespace, ...chartValues()]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/✗ rights: missing: .*create clusterrolebindings\.rbac\.authorization\.k8s\.io \(cluster-wide\)/);
    expect(refused.stdout).toContain('next: ask a cluster admin');
  });

  it('names a CRD of the same name installed by someone else', async () => {
    await plane.kubectl(['create', '-f', '-'], JSON.stringify(healthRuleLike()));
    try {
      const run = await runTidemark(['check', '--pre', ...common(), ...chartValues()]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/✗ CRD healthrules\.tidemark\.dev: exists, installed by "kube-testenv"/);  // the rig kubectl's field manager
      const install = await runTidemark(['install', ...common(), ...chartValues()]);
      expect(install.code).toBe(1);
      expect(install.stderr).toContain('CRD healthrules.tidemark.dev exists and was installed by');
    } finally {
      await admin.client.request({ method: 'DELETE', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/healthrules.tidemark.dev', what: 'delete the foreign CRD' });
      await expect.poll(async () => getObject(admin, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'healthrules.tidemark.dev' }), { timeout: 30_000 }).toBeUndefined();
    }
  });
});

describe('tidemark install, check and uninstall', () => {
  it('installs, waits until ready with progress, and a second run changes nothing', async () => {
    const run = await runTidemark(['install', ...common(), ...chartValues(), '--timeout', '240']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('CRDs: 4 created; all Established');
    expect(run.stdout).toMatch(/waiting: Deployment tidemark-install\/tidemark-reconciler/);
    expect(run.stdout).toMatch(/ready: Deployment tidemark-install\/tidemark-reconciler has 1 of 1 replicas available/);
    expect(run.stdout).toContain(`Tidemark is installed in namespace ${namespace}`);
    expect(run.stdout).not.toContain(redisPassword);
    // The password is in the Secret only; the Deployment names it.
    const secret = await getObject(admin, { apiVersion: 'v1', kind: 'Secret', namespace, name: 'tidemark-redis-auth' }) as unknown as { data: Record<string, string> };
    expect(Buffer.from(secret.data.password!, 'base64').toString()).toBe(redisPassword);
    const deployment = await getObject(admin, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'tidemark-reconciler' });
    expect(JSON.stringify(deployment)).not.toContain(redisPassword);
    expect(await getObject(admin, { apiVersion: 'v1', kind: 'Secret', namespace, name: 'tidemark-dashboard-auth' })).toBeDefined();

    const again = await runTidemark(['install', ...common(), ...chartValues()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing changed: the cluster already holds this install');
  });

  it('check names the unreachable conversion webhook and what to do, then passes once it is served', async () => {
    const before = await runTidemark(['check', ...common()]);
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/✓ Deployment tidemark-install\/tidemark-reconciler: /);
    expect(before.stdout).toContain('✓ CRD webapps.tidemark.dev: Established');
    expect(before.stdout).toMatch(/✗ conversion webhook: the API server cannot call it/);
    expect(before.stdout).toContain('next: the reconciler serves it and fills in the CRD\'s CA when it starts');
    // Stand-in for the reconciler: it applies the CRD as tidemark-crds with its webhook's address and CA.
    conversion = await startTestConversionWebhook();
    await applyObject(admin.asManager('tidemark-crds'), withConversion(webAppPlugin.crd, conversion.conversion()));
    const after = await runTidemark(['check', ...common()]);
    expect(after.stdout).toContain('✓ conversion webhook: the API server converted a v1alpha1 WebApp');
    expect(after.stdout).toContain('✓ Redis: your Redis answers the reconciler');
    expect(after.stdout).toContain('✓ sources: no Source objects');
    expect(after.stdout).toContain('all checks passed');
    expect(after.code).toBe(0);
    // The reconciler's re-apply of the CRD left install's label and id: uninstall still knows it.
    const crd = await getObject(admin, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'webapps.tidemark.dev' });
    expect(crd?.metadata.labels?.['tidemark.dev/installed-by']).toBe('tidemark');
  });

  it('uninstall removes what install made, keeps what Tidemark applied and what it cannot prove is its own', async () => {
    // Stand-ins for objects the reconciler applied from Git: a ConfigMap and a WebApp, with the owner annotation.
    const applied = { 'tidemark.dev/owner': 'platform:core/ConfigMap/x' };
    await applyObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-git', namespace, annotations: applied }, data: { a: '1' } } as never);
    await applyObject(admin, { apiVersion: 'tidemark.dev/v1beta1', kind: 'WebApp', metadata: { name: 'web', namespace, annotations: applied }, spec: { image: { repository: 'nginx', tag: '1' } } } as never);
    // An object listed in the inventory whose proof was taken away (someone else now manages it).
    await admin.client.request({ method: 'PATCH', path: `/api/v1/namespaces/${namespace}/services/tidemark-dashboard`, contentType: 'application/merge-patch+json', body: { metadata: { annotations: { 'tidemark.dev/install-id': null } } }, what: 'drop the id' });

    const run = await runTidemark(['uninstall', ...common()]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('deleted Deployment tidemark-install/tidemark-reconciler');
    expect(run.stdout).toContain('kept Service tidemark-install/tidemark-dashboard: it does not carry this install\'s label and id');
    expect(run.stdout).toMatch(/kept CustomResourceDefinition webapps\.tidemark\.dev: 1 objects of it exist \(tidemark-install\/web\)/);
    expect(run.stdout).toMatch(/kept Namespace tidemark-install: it holds objects install did not make/);
    await expect.poll(async () => getObject(admin, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'tidemark-reconciler' }), { timeout: 30_000 }).toBeUndefined();
    expect(await getObject(admin, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'tidemark-reconciler' })).toBeUndefined();
    expect(await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'from-git' })).toBeDefined();
    expect(await getObject(admin, { apiVersion: 'tidemark.dev/v1beta1', kind: 'WebApp', namespace, name: 'web' })).toBeDefined();
    expect(await getObject(admin, { apiVersion: 'v1', kind: 'Service', namespace, name: 'tidemark-dashboard' })).toBeDefined();
    expect(await getObject(admin, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'sources.tidemark.dev' })).toBeUndefined();

    const second = await runTidemark(['uninstall', ...common()]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing to remove');
  });
});

/** healthRuleLike is a CRD named like Tidemark's HealthRule CRD, as another tool would install it. */
function healthRuleLike(): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'healthrules.tidemark.dev' },
    spec: {
      group: 'tidemark.dev', scope: 'Namespaced', names: { kind: 'HealthRule', plural: 'healthrules', singular: 'healthrule', listKind: 'HealthRuleList' },
      versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

/**
 * limitedKubeconfig is a kubeconfig for a ServiceAccount that may do everything in the namespace and
 * create ClusterRoles, but not ClusterRoleBindings: a real token, so the API server's RBAC answers.
 */
async function limitedKubeconfig(): Promise<string> {
  const rules = [
    { apiGroups: ['', 'apps', 'policy', 'networking.k8s.io', 'apiextensions.k8s.io'], resources: ['*'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
    // RBAC too, but not ClusterRoleBindings.
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'roles', 'rolebindings'], verbs: ['get', 'list', 'create', 'patch'] },
  ];
  await plane.kubectl(['create', 'serviceaccount', 'limited', '-n', 'default']);
  await applyObject(admin, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'limited-install' }, rules } as never);
  await applyObject(admin, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'limited-install' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'limited-install' }, subjects: [{ kind: 'ServiceAccount', name: 'limited', namespace: 'default' }] } as never);
  const token = (await plane.kubectl(['create', 'token', 'limited', '-n', 'default'])).trim();
  const config = JSON.parse(await plane.kubectl(['config', 'view', '--raw', '-o', 'json'])) as { clusters: { cluster: Record<string, unknown> }[] };
  const path = join(scratch, 'limited-kubeconfig');
  await writeFile(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'limited',
    clusters: [{ name: 'install', cluster: config.clusters[0]!.cluster }],
    users: [{ name: 'limited', user: { token } }],
    contexts: [{ name: 'limited', context: { cluster: 'install', user: 'limited' } }],
  }));
  return path;
}
