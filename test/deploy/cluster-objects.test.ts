// deploy/ with Cluster objects, least privilege: the chart (Helm's own engine) with
// clusterObjects.enabled renders a Role in one namespace for Clusters and their kubeconfig Secrets,
// nothing cluster-wide for them, and the config the reconciler reads; installed for real on the rig,
// SubjectAccessReviews show what the reconciler may and may not do. The Kustomize component grants
// the same rules.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { kubectl } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { applyForReal, canServiceAccount, describeQuestion, type AccessQuestion } from './api-server';
import { kustomizeBase, renderHelm, renderKustomize, type Manifest } from './render';

const suffix = randomUUID().slice(0, 8);
const kubeconfigPath = inject('kubeconfigPath');
const release = `tco-${suffix}`;
const home = `tco-${suffix}`;
const fleet = `tcf-${suffix}`;
const reconcilerAccount = { namespace: home, name: `${release}-tidemark-reconciler` };
const rbacKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
const roleName = `${release}-tidemark-reconciler-clusters`;
const configOf = (objects: Manifest[]) => parseYaml((objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-reconciler-config')) as unknown as { data: Record<string, string> }).data['tidemark.yaml']!) as Record<string, unknown>;
const named = (objects: Manifest[], kind: string, name: string) => objects.filter((object) => object.kind === kind && object.metadata.name === name);
const crdRuleNames = (objects: Manifest[]) => ((objects.find((object) => object.kind === 'ClusterRole' && object.metadata.name.endsWith('-reconciler'))?.rules ?? []) as { resourceNames?: string[]; resources: string[] }[])
  .filter((rule) => rule.resources.includes('customresourcedefinitions')).flatMap((rule) => rule.resourceNames ?? []);

let work = '';
let objects: Manifest[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tidemark-deploy-clusters-'));
  // Clusters in a namespace of their own: the Role there reaches no other Secret.
  objects = await renderHelm({ name: release, namespace: home, set: ['clusterObjects.enabled=true', `clusterObjects.namespace=${fleet}`] });
  for (const namespace of [home, fleet]) await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
}, 600_000);
afterAll(async () => {
  for (const namespace of [home, fleet]) await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(kubeconfigPath, ['delete', 'clusterrole,clusterrolebinding', `${release}-tidemark-reconciler`, '--ignore-not-found']).catch(() => undefined);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the Helm chart with clusterObjects in a namespace of their own', () => {
  it('renders a Role and RoleBinding there only, and the config the reconciler loads', async () => {
    expect([...named(objects, 'Role', roleName), ...named(objects, 'RoleBinding', roleName)].map((object) => object.metadata.namespace)).toEqual([fleet, fleet]);
    expect(named(objects, 'ClusterRole', roleName)).toEqual([]);
    expect(crdRuleNames(objects)).toContain('clusters.tidemark.dev');
    expect(configOf(objects).clusterObjects).toEqual({ enabled: true, namespace: fleet, allowExecPlugins: false, probeIntervalMs: 15_000 });
    await writeFile(join(work, 'tidemark.yaml'), stringify({ ...configOf(objects), sources: [{ name: 'x', url: 'https://git.example.com/x.git', ref: { branch: 'main' }, intervalMs: 60_000 }], clusters: [{ name: 'in-cluster', kubeconfig: kubeconfigPath }] }));
    expect(loadConfig({ TIDEMARK_REDIS_URL: 'redis://127.0.0.1:6379' }, join(work, 'tidemark.yaml')).clusterObjects).toEqual({ enabled: true, cluster: 'in-cluster', namespace: fleet, allowExecPlugins: false, probeIntervalMs: 15_000 });
  });

  it('lets the reconciler read Clusters and their Secrets there, patch their finalizer and status, and the CRD', async () => {
    const allowed: AccessQuestion[] = [
      ...['get', 'list', 'watch', 'patch'].map((verb) => ({ verb, group: 'tidemark.dev', resource: 'clusters', namespace: fleet })),
      ...['get', 'patch'].map((verb) => ({ verb, group: 'tidemark.dev', resource: 'clusters', subresource: 'status', namespace: fleet })),
      ...['get', 'list', 'watch'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace: fleet })),
      ...['get', 'patch'].map((verb) => ({ verb, group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', name: 'clusters.tidemark.dev' })),
    ];
    const answers = await canServiceAccount(kubeconfigPath, reconcilerAccount, allowed);
    expect(allowed.filter((_, index) => !answers[index]).map(describeQuestion)).toEqual([]);
  });

  it('refuses it Secrets and Clusters anywhere else (its own namespace, kube-system, cluster-wide) and any write but patch', async () => {
    const refused: AccessQuestion[] = [
      ...['get', 'list', 'watch'].flatMap((verb) => [home, 'kube-system', undefined].map((namespace) => ({ verb, group: '', resource: 'secrets', ...(namespace ? { namespace } : {}) }))),
      ...['get', 'list', 'watch', 'patch'].flatMap((verb) => [home, undefined].map((namespace) => ({ verb, group: 'tidemark.dev', resource: 'clusters', ...(namespace ? { namespace } : {}) }))),
      ...['create', 'update', 'delete'].map((verb) => ({ verb, group: 'tidemark.dev', resource: 'clusters', namespace: fleet })),
      ...['create', 'update', 'patch', 'delete'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace: fleet })),
      { verb: 'delete', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', name: 'clusters.tidemark.dev' },
    ];
    const answers = await canServiceAccount(kubeconfigPath, reconcilerAccount, refused);
    expect(refused.filter((_, index) => answers[index]).map(describeQuestion)).toEqual([]);
  });
});

describe('the Helm chart\'s other clusterObjects values', () => {
  it('serves the release namespace by default, and renders nothing when off (the default)', async () => {
    const rendered = await renderHelm({ name: release, namespace: home, set: ['clusterObjects.enabled=true'] });
    expect(named(rendered, 'Role', roleName).map((object) => object.metadata.namespace)).toEqual([home]);
    expect(configOf(rendered).clusterObjects).toMatchObject({ namespace: home });
    const off = await renderHelm({ name: release, namespace: home });
    expect(off.filter((object) => object.metadata.name.endsWith('-clusters'))).toEqual([]);
    expect(crdRuleNames(off)).not.toContain('clusters.tidemark.dev');
    expect(configOf(off).clusterObjects).toBeUndefined();
  }, 600_000);

  it('refuses clusterObjects under config', async () => {
    await expect(renderHelm({ name: release, namespace: home, set: ['config.clusterObjects.enabled=true'] })).rejects.toThrow(/config.clusterObjects: set the top-level clusterObjects value instead/);
  }, 600_000);
});

describe('the Kustomize component components/cluster-objects', () => {
  it('grants the rules the chart grants, in the overlay\'s namespace, to the reconciler there', async () => {
    const overlay = await mkdtemp(join(tmpdir(), 'tidemark-clusters-overlay-'));
    try {
      await writeFile(join(overlay, 'kustomization.yaml'), [
        'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', `namespace: ${home}`,
        'resources:', `  - ${relative(overlay, kustomizeBase)}`,
        'components:', `  - ${relative(overlay, join(kustomizeBase, '../components/cluster-objects'))}`, '',
      ].join('\n'));
      const kustomized = await renderKustomize(kubeconfigPath, overlay);
      const helm = await renderHelm({ name: 'tidemark', namespace: home, set: ['clusterObjects.enabled=true'] });
      const role = (from: Manifest[]) => from.find((object) => object.kind === 'Role' && object.metadata.name.endsWith('-clusters'));
      expect(role(kustomized)?.metadata.namespace).toBe(home);
      expect(role(kustomized)?.rules).toEqual(role(helm)?.rules);
      const binding = kustomized.find((object) => object.kind === 'RoleBinding' && object.metadata.name.endsWith('-clusters')) as Manifest & { subjects: unknown[] };
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'tidemark-reconciler', namespace: home }]);
      const clusterRules = (from: Manifest[]) => from.find((object) => object.kind === 'ClusterRole')?.rules;
      expect(clusterRules(kustomized)).toEqual(clusterRules(helm));
    } finally {
      await rm(overlay, { recursive: true, force: true });
    }
  }, 600_000);
});
