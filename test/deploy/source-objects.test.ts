// deploy/ with Source objects, least privilege: the chart (Helm's own engine) with
// sourceObjects.namespaces [team-a] installs a Role there and nothing cluster-wide for Sources or
// Secrets; SubjectAccessReviews show what the reconciler may and may not do; and a reconciler running
// as that ServiceAccount (a TokenRequest token), with the namespaces the chart renders into its
// config, serves a Source in team-a (its Secret too) and ignores one in team-b. The Kustomize
// component grants the same rules.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { Redis } from 'ioredis';
import { applyObject, ClusterConnection, getObject } from '@tidemark/cluster';
import { findCondition, RecordKeys, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { kubectl, startGitServer, type GitServer } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { applyForReal, canServiceAccount, describeQuestion, type AccessQuestion } from './api-server';
import { startCommand } from './processes';
import { kustomizeBase, renderHelm, renderKustomize, type Manifest } from './render';

const suffix = randomUUID().slice(0, 8);
const kubeconfigPath = inject('kubeconfigPath');
const release = `tso-${suffix}`;
const home = `tso-${suffix}`;
const teamA = `sa-${suffix}`;
const teamB = `sb-${suffix}`;
const prefix = `tso-${suffix}`;
const reconcilerAccount = { namespace: home, name: `${release}-tidemark-reconciler` };
const rbacKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
const enabledIn = (...namespaces: string[]) => ['sourceObjects.enabled=true', ...namespaces.map((namespace, index) => `sourceObjects.namespaces[${index}]=${namespace}`)];
// The identity of a Source without spec.serviceAccount (issue 34: never the reconciler's own).
const sourceIdentity = 'tidemark-source';
const configOf = (objects: Manifest[]) => parseYaml((objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-reconciler-config')) as unknown as { data: Record<string, string> }).data['tidemark.yaml']!) as Record<string, unknown>;
const named = (objects: Manifest[], kind: string, name: string) => objects.filter((object) => object.kind === kind && object.metadata.name === name);
const crdRuleNames = (objects: Manifest[]) => ((objects.find((object) => object.kind === 'ClusterRole' && object.metadata.name.endsWith('-reconciler'))?.rules ?? []) as { resourceNames?: string[]; resources: string[] }[])
  .filter((rule) => rule.resources.includes('customresourcedefinitions')).flatMap((rule) => rule.resourceNames ?? []);

let work = '';
let objects: Manifest[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tidemark-deploy-sources-'));
  objects = await renderHelm({ name: release, namespace: home, set: [...enabledIn(teamA), `sourceObjects.defaultServiceAccountName=${sourceIdentity}`] });
  for (const namespace of [home, teamA, teamB]) await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
}, 600_000);
afterAll(async () => {
  for (const namespace of [home, teamA, teamB]) await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(kubeconfigPath, ['delete', 'clusterrole,clusterrolebinding', `${release}-tidemark-reconciler`, '--ignore-not-found']).catch(() => undefined);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the Helm chart with sourceObjects.namespaces [team-a]', () => {
  it('renders a Role and RoleBinding in team-a only, and the namespaces into the reconciler\'s config', () => {
    const name = `${release}-tidemark-reconciler-sources`;
    expect([...named(objects, 'Role', name), ...named(objects, 'RoleBinding', name)].map((object) => object.metadata.namespace)).toEqual([teamA, teamA]);
    expect(named(objects, 'ClusterRole', name)).toEqual([]);
    expect(configOf(objects).sourceObjects).toEqual({ enabled: true, namespaces: [teamA], allowCrossNamespaceRefs: false, defaultServiceAccountName: sourceIdentity });
    expect(crdRuleNames(objects)).toContain('sources.tidemark.dev');
  });

  it('lets the reconciler do what team-a\'s Sources need, by SubjectAccessReview', async () => {
    const allowed: AccessQuestion[] = [
      ...['get', 'list', 'watch', 'patch'].map((verb) => ({ verb, group: 'tidemark.dev', resource: 'sources', namespace: teamA })),
      ...['get', 'patch'].map((verb) => ({ verb, group: 'tidemark.dev', resource: 'sources', subresource: 'status', namespace: teamA })),
      ...['get', 'list', 'watch'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace: teamA })),
      ...['get', 'patch'].map((verb) => ({ verb, group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', name: 'sources.tidemark.dev' })),
      { verb: 'create', group: '', resource: 'events', namespace: teamA },
      { verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace: teamA, name: sourceIdentity },
    ];
    const answers = await canServiceAccount(kubeconfigPath, reconcilerAccount, allowed);
    expect(allowed.filter((_, index) => !answers[index]).map(describeQuestion)).toEqual([]);
  });

  it('refuses it Secrets and Sources anywhere else (team-b, its own namespace, cluster-wide) and any write but patch', async () => {
    const refused: AccessQuestion[] = [
      ...['get', 'list', 'watch'].flatMap((verb) => [teamB, home, 'kube-system', undefined].map((namespace) => ({ verb, group: '', resource: 'secrets', ...(namespace ? { namespace } : {}) }))),
      { verb: 'get', group: '', resource: 'secrets', namespace: home, name: 'tidemark-dashboard-auth' },
      ...['get', 'list', 'watch', 'patch'].flatMap((verb) => [teamB, undefined].map((namespace) => ({ verb, group: 'tidemark.dev', resource: 'sources', ...(namespace ? { namespace } : {}) }))),
      ...['create', 'update', 'delete'].map((verb) => ({ verb, group: 'tidemark.dev', resource: 'sources', namespace: teamA })),
      { verb: 'patch', group: 'tidemark.dev', resource: 'sources', subresource: 'status', namespace: teamB },
      ...['create', 'update', 'patch', 'delete'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace: teamA })),
      { verb: 'delete', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', name: 'sources.tidemark.dev' },
      // The default identity only, and only in the served namespace.
      { verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace: teamA, name: 'admin' },
      ...[teamB, home].map((namespace) => ({ verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace, name: sourceIdentity })),
    ];
    const answers = await canServiceAccount(kubeconfigPath, reconcilerAccount, refused);
    expect(refused.filter((_, index) => answers[index]).map(describeQuestion)).toEqual([]);
  });
});

describe('a reconciler as the chart\'s ServiceAccount, with the chart\'s sourceObjects', () => {
  let git: GitServer;
  let reconciler: RunningReconciler | undefined;
  let admin: ClusterConnection;
  let redis: Redis;
  let reconcilerConfig: Record<string, unknown> = {};

  const gitSecret = (namespace: string): KubernetesManifest => ({
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 'git-auth', namespace, labels: { 'tidemark.dev/source': 'app' } },
    data: { username: Buffer.from('bot').toString('base64'), password: Buffer.from('team-password').toString('base64') },
  });
  const sourceIn = (namespace: string, url: string): KubernetesManifest => ({
    apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name: 'app', namespace },
    spec: { url, ref: { branch: 'main' }, intervalMs: 1_000, secretRef: { name: 'git-auth' } },
  });
  const configMapIn = (namespace: string, name: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { value: name } });
  const sourceOf = (namespace: string) => getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name: 'app' });
  const configMapOf = (namespace: string, name: string) => getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

  beforeAll(async () => {
    admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
    redis = new Redis(inject('redisUrl'));
    git = await startGitServer({ basicAuth: { username: 'bot', password: 'team-password' } });
    const repositories: [name: string, namespace: string][] = [['boot', home], ['app-a', teamA], ['app-b', teamB]];
    const urls = new Map<string, string>();
    for (const [name, namespace] of repositories) {
      urls.set(name, await git.createRepository(name));
      const copy = await git.workingCopy(name);
      await copy.write(`${name}.yaml`, configMapIn(namespace, `from-${name}`));
      await copy.commitAndPush(`${name} first`);
    }
    // The reconciler's ServiceAccount, as the kubelet would give it a token.
    const token = (await kubectl(kubeconfigPath, ['create', 'token', reconcilerAccount.name, '-n', home, '--duration', '1h'])).trim();
    const cluster = (parseYaml(inject('kubeconfig')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] }).clusters[0]!.cluster;
    await writeFile(join(work, 'reconciler.kubeconfig'), JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'sa',
      clusters: [{ name: 'rig', cluster }], users: [{ name: 'reconciler', user: { token } }],
      contexts: [{ name: 'sa', context: { cluster: 'rig', user: 'reconciler' } }],
    }));
    for (const namespace of [teamA, teamB]) await applyObject(admin, gitSecret(namespace));
    // team-a's owner gives the default identity the rights its Sources need (the chart lets the reconciler impersonate it).
    const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: sourceIdentity, namespace: teamA } };
    await applyObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sourceIdentity, namespace: teamA } });
    await applyObject(admin, { ...rbac, kind: 'Role', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }] } as KubernetesManifest);
    await applyObject(admin, { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: sourceIdentity }, subjects: [{ kind: 'ServiceAccount', name: sourceIdentity, namespace: teamA }] } as KubernetesManifest);
    reconcilerConfig = {
      redis: { url: inject('redisUrl'), prefix },
      cacheDir: join(work, 'cache'),
      sources: [{ name: 'boot', url: urls.get('boot'), ref: { branch: 'main' }, intervalMs: 1_000, auth: { username: 'bot', password: { env: 'BOOT_PASSWORD' } } }],
      clusters: [{ name: 'rig', kubeconfig: join(work, 'reconciler.kubeconfig') }],
      sourceObjects: configOf(objects).sourceObjects,
      http: { port: 0, host: '127.0.0.1' },
    };
    await writeFile(join(work, 'tidemark.yaml'), stringify(reconcilerConfig));
    // On the old code this start never ends: a cluster-wide watch of Sources and Secrets is forbidden.
    reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(work, 'tidemark.yaml'), BOOT_PASSWORD: 'team-password' }), createLogger(process.env.TIDEMARK_TEST_LOG ?? 'error'));
    for (const namespace of [teamB, teamA]) await applyObject(admin, sourceIn(namespace, urls.get(`app-${namespace === teamA ? 'a' : 'b'}`)!));
  }, 600_000);
  afterAll(async () => {
    await reconciler?.stop();
    // team-b's Source never got a finalizer; team-a's is released by removing the namespace's Sources' finalizers.
    await kubectl(kubeconfigPath, ['patch', 'source', 'app', '-n', teamA, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(() => undefined);
    admin?.close();
    redis?.disconnect();
    await git?.stop();
  });

  it('serves the Source in team-a: its Secret read, its objects applied, its finalizer and status written', async () => {
    await expect.poll(async () => ((await configMapOf(teamA, 'from-app-a')) as { data?: { value?: string } } | undefined)?.data?.value, { timeout: 60_000 }).toBe('from-app-a');
    await expect.poll(async () => findCondition(((await sourceOf(teamA))?.status as { conditions?: Condition[] } | undefined)?.conditions, 'Ready')?.status, { timeout: 30_000 }).toBe('True');
    expect((await sourceOf(teamA))?.metadata.finalizers).toEqual(['tidemark.dev/source-prune']);
    // The config-file source keeps working beside them.
    await expect.poll(async () => (await configMapOf(home, 'from-boot'))?.metadata.name, { timeout: 30_000 }).toBe('from-boot');
  });

  it('ignores the Source in team-b: no finalizer, no status, nothing applied, not in the dashboard\'s index', async () => {
    // team-b's Source was created before team-a's and polls as often: had it been served, it would be done by now.
    await expect.poll(async () => ((await sourceOf(teamA))?.status as { lastFetchedRevision?: string } | undefined)?.lastFetchedRevision, { timeout: 30_000 }).toMatch(/^[0-9a-f]{40}$/);
    const ignored = await sourceOf(teamB);
    expect(ignored?.metadata.finalizers).toBeUndefined();
    expect(ignored?.status).toBeUndefined();
    expect(await configMapOf(teamB, 'from-app-b')).toBeUndefined();
    const index = await redis.smembers(new RecordKeys(prefix).sourceIndex);
    expect(index).toContain(`${teamA}.app`);
    expect(index).not.toContain(`${teamB}.app`);
  });

  // On the old code the process logs "Secret watch failed; retrying" and never ends its start-up (this test times out).
  it('stops at start-up with exit code 1 and says what to grant, when a served namespace (team-b) has no Role', async () => {
    await writeFile(join(work, 'forbidden.yaml'), stringify({
      ...reconcilerConfig,
      redis: { url: inject('redisUrl'), prefix: `${prefix}-forbidden` },
      cacheDir: join(work, 'cache-forbidden'),
      sourceObjects: { enabled: true, namespaces: [teamA, teamB], allowCrossNamespaceRefs: false },
    }));
    const main = fileURLToPath(new URL('../../apps/reconciler/src/main.ts', import.meta.url));
    const program = startCommand(process.execPath, ['--import', 'tsx', main], { TIDEMARK_CONFIG: join(work, 'forbidden.yaml'), BOOT_PASSWORD: 'team-password', TIDEMARK_LOG_LEVEL: 'info' });
    // Also when the test times out (the old code): the process must not outlive it.
    onTestFinished(async () => { await program.stop(5_000); });
    const code = await new Promise<number | null>((resolve) => program.child.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(1);
    const said = program.output().split('\n').find((line) => line.startsWith('tidemark could not start:')) ?? program.output();
    expect(said).toContain(`may not list secrets in namespace ${teamB} (403 Forbidden`);
    expect(said).toContain(`list ${teamB} in the value sourceObjects.namespaces`);
    expect(said).toContain(`add the Role and RoleBinding of components/source-objects with metadata.namespace: ${teamB}`);
    expect(said).toContain('deploy/README.md, "Source objects"');
    expect(said).not.toContain(teamA);
  }, 240_000);
});

describe('the Helm chart\'s other sourceObjects values', () => {
  it('serves the release namespace by default, with a Role there', async () => {
    const rendered = await renderHelm({ name: release, namespace: home, set: ['sourceObjects.enabled=true'] });
    expect(named(rendered, 'Role', `${release}-tidemark-reconciler-sources`).map((object) => object.metadata.namespace)).toEqual([home]);
    expect(configOf(rendered).sourceObjects).toMatchObject({ namespaces: [home] });
  }, 600_000);

  it('serves every namespace with "*", through a ClusterRole (documented as reading every Secret)', async () => {
    const rendered = await renderHelm({ name: release, namespace: home, set: enabledIn('*') });
    const name = `${release}-tidemark-reconciler-sources`;
    expect([...named(rendered, 'ClusterRole', name), ...named(rendered, 'ClusterRoleBinding', name)].map((object) => object.metadata.namespace)).toEqual([undefined, undefined]);
    expect(named(rendered, 'Role', name)).toEqual([]);
    await writeFile(join(work, 'all.yaml'), stringify({ ...configOf(rendered), sources: [{ name: 'x', url: 'https://git.example.com/x.git', ref: { branch: 'main' }, intervalMs: 60_000 }], clusters: [{ name: 'in-cluster', kubeconfig: kubeconfigPath }] }));
    expect(loadConfig({ TIDEMARK_REDIS_URL: 'redis://127.0.0.1:6379' }, join(work, 'all.yaml')).sourceObjects.namespaces).toBe('all');
  }, 600_000);

  it('renders the allow ceiling into the config, as the reconciler reads it', async () => {
    const rendered = await renderHelm({ name: release, namespace: home, set: [...enabledIn(teamA), 'sourceObjects.allow.namespaces[0]=sa-*', 'sourceObjects.allow.denyKinds[0]=rbac.authorization.k8s.io/*'] });
    expect(configOf(rendered).sourceObjects).toMatchObject({ allow: { namespaces: ['sa-*'], denyKinds: ['rbac.authorization.k8s.io/*'] } });
    expect(configOf(rendered).sourceObjects).not.toHaveProperty('defaultServiceAccountName');
    expect(named(rendered, 'Role', `${release}-tidemark-reconciler-sources`)[0]?.rules).not.toContainEqual(expect.objectContaining({ verbs: ['impersonate'] }));
    await writeFile(join(work, 'ceiling.yaml'), stringify({ ...configOf(rendered), sources: [{ name: 'x', url: 'https://git.example.com/x.git', ref: { branch: 'main' }, intervalMs: 60_000 }], clusters: [{ name: 'in-cluster', kubeconfig: kubeconfigPath }] }));
    expect(loadConfig({ TIDEMARK_REDIS_URL: 'redis://127.0.0.1:6379' }, join(work, 'ceiling.yaml')).sourceObjects.allow).toMatchObject({ namespaces: ['sa-*'], denyKinds: ['rbac.authorization.k8s.io/*'], clusterKinds: [] });
  }, 600_000);

  it('renders nothing for Source objects when they are off (the default)', async () => {
    const rendered = await renderHelm({ name: release, namespace: home });
    expect(rendered.filter((object) => object.metadata.name.endsWith('-sources'))).toEqual([]);
    expect(crdRuleNames(rendered)).not.toContain('sources.tidemark.dev');
    expect(configOf(rendered).sourceObjects).toBeUndefined();
  }, 600_000);

  it.each([
    [[...enabledIn('*', teamA)], /sourceObjects.namespaces: "\*" \(every namespace\) cannot be listed with other namespaces/],
    [[...enabledIn('Team_A')], /sourceObjects.namespaces: "Team_A" is not a namespace name/],
    [['config.sourceObjects.enabled=true'], /config.sourceObjects: set the top-level sourceObjects value instead/],
    [[...enabledIn(teamA), 'rbac.extraResources[0].apiGroups[0]=', 'rbac.extraResources[0].resources[0]=serviceaccounts', 'rbac.extraResources[0].verbs[0]=impersonate'], /verb "impersonate" in rbac.extraResources\[0\] is refused/],
  ])('refuses %s', async (set, message) => {
    await expect(renderHelm({ name: release, namespace: home, set })).rejects.toThrow(message);
  }, 600_000);
});

describe('the Kustomize component components/source-objects', () => {
  it('grants the rules the chart grants, in the overlay\'s namespace, to the reconciler there', async () => {
    const overlay = await mkdtemp(join(tmpdir(), 'tidemark-sources-overlay-'));
    try {
      await writeFile(join(overlay, 'kustomization.yaml'), [
        'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', `namespace: ${home}`,
        'resources:', `  - ${relative(overlay, kustomizeBase)}`,
        'components:', `  - ${relative(overlay, join(kustomizeBase, '../components/source-objects'))}`, '',
      ].join('\n'));
      const kustomized = await renderKustomize(kubeconfigPath, overlay);
      const helm = await renderHelm({ name: 'tidemark', namespace: home, set: ['sourceObjects.enabled=true'] });
      const role = (from: Manifest[]) => from.find((object) => object.kind === 'Role' && object.metadata.name.endsWith('-sources'));
      expect(role(kustomized)?.metadata.namespace).toBe(home);
      expect(role(kustomized)?.rules).toEqual(role(helm)?.rules);
      const binding = kustomized.find((object) => object.kind === 'RoleBinding' && object.metadata.name.endsWith('-sources')) as Manifest & { subjects: unknown[] };
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'tidemark-reconciler', namespace: home }]);
      const clusterRules = (from: Manifest[]) => from.find((object) => object.kind === 'ClusterRole')?.rules;
      expect(clusterRules(kustomized)).toEqual(clusterRules(helm));
    } finally {
      await rm(overlay, { recursive: true, force: true });
    }
  }, 600_000);
});
