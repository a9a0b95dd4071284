// Issue 34 item 2, black-box: a Source object's tenancy is not self-declared. On a reconciler that
// serves Sources in team-a and team-b (the README's setup, with no identity setting), team-a's
// Source without a serviceAccount is refused (IdentityRequired) instead of creating
// kube-system/team-a-was-here as the reconciler; team-a's Source listing team-b's ServiceAccounts
// in allow.serviceAccounts is refused instead of creating team-b/pwned through a Placement rule as
// team-b's deployer; a Source's allow-list cannot widen the operator's ceiling; and (item 9) a
// Source's secretRef sends only a Secret that opted in for it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, createObject, getObject } from '@tidemark/cluster';
import { findCondition, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { kubectl, startGitServer, type GitServer } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

const id = randomUUID().slice(0, 8);
const teamA = `ta-${id}`;
const teamB = `tb-${id}`;
const canary = `team-a-was-here-${id}`;
const kubeconfigPath = inject('kubeconfigPath');
let git: GitServer;
let guarded: GitServer;
let work: string;
let admin: ClusterConnection;
let reconciler: RunningReconciler;
const urls = new Map<string, string>();

const configMap = (namespace: string, name: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { by: 'team-a' } });
const live = (namespace: string, name: string) => getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const source = (name: string, spec: Record<string, unknown>): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name, namespace: teamA },
  spec: { url: urls.get(name), ref: { branch: 'main' }, intervalMs: 1_000, ...spec },
});
const readyOf = async (name: string) => findCondition(((await getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace: teamA, name }))?.status as { conditions?: Condition[] } | undefined)?.conditions, 'Ready');
const stalledOf = async (key: string) => findCondition((await reconciler.statusStore.get('rig', key))?.conditions, 'Stalled');

/** deployer makes ServiceAccount `deployer` in a namespace, allowed to write its ConfigMaps (so impersonating it would work). */
async function deployer(namespace: string): Promise<void> {
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'deployer', namespace } };
  await applyObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace } });
  await applyObject(admin, { ...rbac, kind: 'Role', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }] } as KubernetesManifest);
  await applyObject(admin, { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' }, subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace }] } as KubernetesManifest);
}

async function repository(name: string, files: Record<string, string>): Promise<void> {
  urls.set(name, await git.createRepository(`${name}-${id}`));
  const copy = await git.workingCopy(`${name}-${id}`);
  for (const [path, text] of Object.entries(files)) await copy.write(path, text);
  await copy.commitAndPush(`${name} first`);
}

beforeAll(async () => {
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  for (const namespace of [teamA, teamB]) await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  for (const namespace of [teamA, teamB]) await deployer(namespace);
  git = await startGitServer();
  await repository('boot', { 'README.md': 'nothing to apply\n' });
  await repository('intrude', { 'escape.yaml': configMap('kube-system', canary) });
  await repository('borrow', {
    'placement.yaml': stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Placement', metadata: { name: 'borrow' }, spec: { rules: [{ paths: ['team-b/'], serviceAccount: { namespace: teamB, name: 'deployer' } }] } }),
    'team-b/pwned.yaml': configMap(teamB, 'pwned'),
  });
  await repository('own', { 'fine.yaml': configMap(teamA, 'fine'), 'outside.yaml': configMap(teamB, 'outside') });
  guarded = await startGitServer({ basicAuth: { username: 'ci', password: `ci-password-${id}` } });
  urls.set('private', await guarded.createRepository(`private-${id}`));
  const copy = await guarded.workingCopy(`private-${id}`);
  await copy.write('private.yaml', configMap(teamA, 'private'));
  await copy.commitAndPush('private first');
  work = await mkdtemp(join(tmpdir(), 'tidemark-tenancy-sources-'));
  await writeFile(join(work, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix: `tso-${id}` },
    cacheDir: join(work, 'cache'),
    sources: [{ name: 'boot', url: urls.get('boot'), ref: { branch: 'main' }, intervalMs: 60_000 }],
    clusters: [{ name: 'rig', kubeconfig: kubeconfigPath }],
    // The operator's ceiling: a Source may reach its own team's namespace, and only ConfigMaps.
    sourceObjects: { enabled: true, namespaces: [teamA, teamB], allow: { namespaces: ['ta-*'], kinds: ['ConfigMap'] } },
    http: { port: 0, host: '127.0.0.1' },
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(work, 'tidemark.yaml') }), createLogger(process.env.TIDEMARK_TEST_LOG ?? 'error'));
}, 300_000);

afterAll(async () => {
  await reconciler?.stop();
  for (const name of ['intrude', 'borrow', 'own', 'private']) {
    await kubectl(kubeconfigPath, ['patch', 'source', name, '-n', teamA, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(() => undefined);
  }
  for (const namespace of [teamA, teamB]) await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(kubeconfigPath, ['delete', 'configmap', canary, '-n', 'kube-system', '--ignore-not-found']).catch(() => undefined);
  admin?.close();
  await git?.stop();
  await guarded?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a Source object\'s tenancy is the operator\'s, not its own', () => {
  it('refuses a Source with no identity (IdentityRequired): nothing is created in kube-system as the reconciler', async () => {
    await createObject(admin, source('intrude', {}));
    await expect.poll(async () => (await readyOf('intrude'))?.reason, { timeout: 30_000 }).toBe('IdentityRequired');
    expect((await readyOf('intrude'))?.message).toMatch(new RegExp(`^Source ${teamA}/intrude spec\\.serviceAccount: required; a Source acts as a ServiceAccount of its own namespace, never as the reconciler\\.`));
    // Never put, never polled: a whole poll interval later there is still nothing.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await live('kube-system', canary)).toBeUndefined();
  });

  it('refuses a Source that lets its Placement rules act as another namespace\'s ServiceAccount: team-b/pwned is not created', async () => {
    await createObject(admin, source('borrow', { serviceAccount: { namespace: teamA, name: 'deployer' }, allow: { namespaces: [teamA, teamB], serviceAccounts: [`${teamB}/*`] } }));
    await expect.poll(async () => (await readyOf('borrow'))?.reason, { timeout: 30_000 }).toBe('SourceInvalid');
    expect((await readyOf('borrow'))?.message).toContain(`Source ${teamA}/borrow spec.allow.serviceAccounts[0]: a Source in ${teamA} may let Placement rules act as ServiceAccounts in ${teamA} only`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await live(teamB, 'pwned')).toBeUndefined();
  });

  it('holds a Source to the operator\'s allow ceiling though its own list says "*": team-a is applied, team-b refused (NotAllowed)', async () => {
    await createObject(admin, source('own', { serviceAccount: { namespace: teamA, name: 'deployer' }, allow: { namespaces: ['*'] } }));
    await expect.poll(async () => (await live(teamA, 'fine'))?.metadata.name, { timeout: 30_000 }).toBe('fine');
    await expect.poll(async () => (await stalledOf(`core/ConfigMap/${teamB}/outside`))?.reason, { timeout: 30_000 }).toBe('NotAllowed');
    expect((await stalledOf(`core/ConfigMap/${teamB}/outside`))?.message).toContain(`namespace ${teamB} is not in allow.namespaces (ta-*)`);
    expect(await live(teamB, 'outside')).toBeUndefined();
  });

  it('sends no credentials from a Secret that has not opted in for the Source (SecretNotAllowed), and does once it opts in', async () => {
    // The CI's credentials, in team-a's namespace, made for something else.
    const ciSecret = (labels?: Record<string, string>): KubernetesManifest => ({
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ci-token', namespace: teamA, ...(labels ? { labels } : {}) },
      data: { username: Buffer.from('ci').toString('base64'), password: Buffer.from(`ci-password-${id}`).toString('base64') },
    });
    await applyObject(admin, ciSecret());
    await createObject(admin, source('private', { serviceAccount: { namespace: teamA, name: 'deployer' }, secretRef: { name: 'ci-token' } }));
    await expect.poll(async () => (await readyOf('private'))?.reason, { timeout: 30_000 }).toBe('SecretNotAllowed');
    const message = (await readyOf('private'))?.message ?? '';
    expect(message).toMatch(new RegExp(`^Secret not allowed: ${teamA}/ci-token \\(spec\\.secretRef of Source ${teamA}/private\\) has not opted in for Source ${teamA}/private`));
    expect(message).toContain('the label tidemark.dev/source: "private"');
    expect(message).not.toContain(`ci-password-${id}`);
    expect(await live(teamA, 'private')).toBeUndefined();
    // The Secret's owner opts it in: the next fetch uses it.
    await applyObject(admin, ciSecret({ 'tidemark.dev/source': 'private' }));
    await expect.poll(async () => (await live(teamA, 'private'))?.metadata.name, { timeout: 30_000 }).toBe('private');
    await expect.poll(async () => (await readyOf('private'))?.status, { timeout: 15_000 }).toBe('True');
  });
});
