// Sources as Kubernetes objects, end to end on a control plane of its own (its team-a is a fixed
// name, served through sourceObjects.namespaces): the bootstrap loop (a
// config-file source applies Source objects from Git), change, suspend, a rotated password, a
// missing Secret, a GitHub App Secret, CEL refusals at admission, one Event per revision for files
// that cannot be read, a Source that defines itself, deletion, and a deletion its ServiceAccount may not finish.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ApiError, applyObject, ClusterConnection, createObject, deleteObject, getObject } from '@tidemark/cluster';
import { findCondition, RecordKeys, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { startControlPlane, startGitHubAppServer, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

const prefix = `sources-${randomUUID().slice(0, 8)}`;
const team = 'team-a';
let plane: ControlPlane;
let open: GitServer;
let guarded: GitServer;
let boot: WorkingCopy;
let app: WorkingCopy;
let appUrl: string;
let workDir: string;
let reconciler: RunningReconciler;
let admin: ClusterConnection;
let redis: Redis;

const sourceObject = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source',
  metadata: { name, namespace: team, ...(annotations ? { annotations } : {}) },
  spec: { ref: { branch: 'main' }, intervalMs: 1_000, ...spec },
});
const configMap = (name: string, value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: team }, data: { value } });
const gitSecret = (password: string): KubernetesManifest => ({
  // Opted in for Source app: Tidemark sends no Secret's credentials that has not.
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 'git-auth', namespace: team, labels: { 'tidemark.dev/source': 'app' } },
  data: { username: Buffer.from('bot').toString('base64'), password: Buffer.from(password).toString('base64') },
});
const getSource = (name: string) => getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace: team, name });
const statusOf = async (name: string) => ((await getSource(name))?.status ?? {}) as { conditions?: Condition[]; lastFetchedRevision?: string; lastCommitMessage?: string; lastError?: string; objects?: number };
const ready = async (name: string) => findCondition((await statusOf(name)).conditions, 'Ready');
const valueOf = async (name: string) => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: team, name })) as { data?: { value?: string } } | undefined)?.data?.value;
const pushSource = async (object: KubernetesManifest) => {
  await boot.write(`sources/${object.metadata.name}.yaml`, stringify(object));
  await boot.commitAndPush(`source ${object.metadata.name}`);
};

beforeAll(async () => {
  plane = await startControlPlane({ name: 'sources' });
  admin = ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: plane.kubeconfig });
  redis = new Redis(inject('redisUrl'));
  open = await startGitServer();
  guarded = await startGitServer({ basicAuth: { username: 'bot', password: 'first-password' } });
  const bootUrl = await open.createRepository('boot');
  boot = await open.workingCopy('boot');
  await boot.write('sources/namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: team } }));
  // The identity of a Source without spec.serviceAccount (sourceObjects.defaultServiceAccountName): a
  // Source never acts as the reconciler. It may write what these Sources apply: ConfigMaps, and Sources.
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'tidemark-source', namespace: team } };
  await boot.write('sources/identity.yaml', [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tidemark-source', namespace: team } },
    { ...rbac, kind: 'Role', rules: [{ apiGroups: ['', 'tidemark.dev'], resources: ['configmaps', 'sources'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }] },
    { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tidemark-source' }, subjects: [{ kind: 'ServiceAccount', name: 'tidemark-source', namespace: team }] },
  ].map((object) => stringify(object)).join('---\n'));
  await boot.commitAndPush('bootstrap');
  appUrl = await guarded.createRepository('app');
  app = await guarded.workingCopy('app');
  await app.write('v1/settings.yaml', configMap('settings', 'one'));
  await app.write('v2/other.yaml', configMap('other', 'two'));
  await app.commitAndPush('first settings');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-sources-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    // The bootstrap: a config-file source whose folder holds Source objects.
    sources: [{ name: 'boot', url: bootUrl, ref: { branch: 'main' }, path: 'sources', intervalMs: 1_000 }],
    clusters: [{ name: 'mgmt', kubeconfig: plane.kubeconfigPath }],
    sourceObjects: { enabled: true, namespaces: [team], defaultServiceAccountName: 'tidemark-source' },
    http: { port: 0, host: '127.0.0.1' },
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml') }), createLogger(process.env.TIDEMARK_TEST_LOG ?? 'error'));
}, 600_000);

afterAll(async () => {
  await reconciler?.stop();
  admin?.close();
  redis?.disconnect();
  await open?.stop();
  await guarded?.stop();
  await plane?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('Source objects', () => {
  it('bootstrap: a Source pushed to the sources folder is picked up, reconciled and shown', async () => {
    await expect.poll(async () => (await getObject(admin, { apiVersion: 'v1', kind: 'Namespace', name: team }))?.metadata.name, { timeout: 30_000 }).toBe(team);
    await applyObject(admin, gitSecret('first-password'));
    await pushSource(sourceObject('app', { url: appUrl, path: 'v1', secretRef: { name: 'git-auth' } }));
    await expect.poll(() => valueOf('settings'), { timeout: 30_000 }).toBe('one');
    const head = await app.git('rev-parse', 'HEAD');
    await expect.poll(async () => (await statusOf('app')).lastFetchedRevision, { timeout: 15_000 }).toBe(head);
    expect(await ready('app')).toMatchObject({ status: 'True', reason: 'ReconciliationSucceeded' });
    expect(await statusOf('app')).toMatchObject({ lastCommitMessage: 'first settings', objects: 1 });
    const columns = await plane.kubectl(['get', 'sources', '-n', team, 'app', '--no-headers']);
    expect(columns).toMatch(new RegExp(`^app\\s+${appUrl.replaceAll('.', '\\.')}\\s+branch main\\s+${head}\\s+True\\s+`));
    expect(await redis.sismember(new RecordKeys(prefix).sourceIndex, `${team}.app`)).toBe(1);
    // Held by a finalizer, so deleting it prunes first.
    expect((await getSource('app'))?.metadata.finalizers).toEqual(['tidemark.dev/source-prune']);
    // The status shows no credential material.
    expect(JSON.stringify(await getSource('app'))).not.toContain('first-password');
  });

  it('refuses a bad URL and a ref with two selectors at admission, by the CRD\'s CEL rules', async () => {
    const refused = async (object: KubernetesManifest) => createObject(admin, object).then(() => 'created', (error: unknown) => (error instanceof ApiError ? `${error.status} ${error.message}` : String(error)));
    expect(await refused(sourceObject('plain-http', { url: 'http://git.example.com/app.git' }))).toMatch(/^422 .*url must use https \(plain http is allowed only for loopback hosts\)/);
    expect(await refused(sourceObject('two-refs', { url: 'https://git.example.com/app.git', ref: { branch: 'main', tag: 'v1' } }))).toMatch(/^422 .*set exactly one of branch, tag, semver, commit/);
    expect(await getSource('plain-http')).toBeUndefined();
  });

  it('a changed Source takes effect without a restart: another path is applied and the old one pruned', async () => {
    await pushSource(sourceObject('app', { url: appUrl, path: 'v2', secretRef: { name: 'git-auth' } }));
    await expect.poll(() => valueOf('other'), { timeout: 30_000 }).toBe('two');
    await expect.poll(() => valueOf('settings'), { timeout: 30_000 }).toBeUndefined();
  });

  it('files that cannot be read give one Warning Event per revision on the Source, naming each file and why', async () => {
    interface EventItem { metadata: { name: string }; message: string; count?: number; involvedObject: { uid?: string } }
    const problemEvents = async () => (await admin.client.request<{ items: EventItem[] }>({
      method: 'GET', path: `/api/v1/namespaces/${team}/events`, query: { fieldSelector: 'involvedObject.kind=Source,involvedObject.name=app,reason=SourceInvalid' }, what: 'list the Source\'s events',
    })).items;
    const polledAt = async () => (await redis.hget(new RecordKeys(prefix).sourceStatus(`${team}.app`), 'polledAt')) ?? '';
    await app.write('v2/broken.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "broken\n');
    await app.write('v2/list.yaml', '- a\n- b\n');
    const first = await app.commitAndPush('two files that cannot be read');
    await expect.poll(async () => (await problemEvents()).map((event) => event.metadata.name), { timeout: 30_000 }).toEqual([`app.${first.slice(0, 16)}.problems`]);
    const [event] = await problemEvents();
    expect(event!.message).toMatch(new RegExp(`^Revision ${first.slice(0, 12)} has 2 problems; `));
    expect(event!.message).toMatch(/v2\/broken\.yaml:\d+: [^;]+\(ParseFailed\)/);
    expect(event!.message).toContain('v2/list.yaml');
    expect(event!.involvedObject.uid).toBe((await getSource('app'))?.metadata.uid);
    expect(await statusOf('app')).toMatchObject({ lastFetchedRevision: first, sourceErrors: 2 });
    // More polls of the same revision add no Event.
    for (let poll = 0; poll < 2; poll += 1) {
      const since = new Date().toISOString();
      await expect.poll(async () => (await polledAt()) > since, { timeout: 10_000 }).toBe(true);
    }
    expect((await problemEvents()).map((item) => [item.metadata.name, item.count])).toEqual([[`app.${first.slice(0, 16)}.problems`, 1]]);
    // A new revision that still has problems gets its own Event; a repaired one none.
    await app.write('v2/broken.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: [\n');
    const second = await app.commitAndPush('still broken');
    await expect.poll(async () => (await problemEvents()).map((item) => item.metadata.name).sort(), { timeout: 30_000 }).toEqual([`app.${first.slice(0, 16)}.problems`, `app.${second.slice(0, 16)}.problems`].sort());
    await app.delete('v2/broken.yaml');
    await app.delete('v2/list.yaml');
    const repaired = await app.commitAndPush('repaired');
    await expect.poll(async () => statusOf('app'), { timeout: 30_000 }).toMatchObject({ lastFetchedRevision: repaired, sourceErrors: 0 });
    expect(await problemEvents()).toHaveLength(2);
  });

  it('a suspended Source fetches nothing until it is resumed', async () => {
    await pushSource(sourceObject('app', { url: appUrl, path: 'v2', secretRef: { name: 'git-auth' }, suspend: true }));
    await expect.poll(async () => (await ready('app'))?.reason, { timeout: 20_000 }).toBe('Suspended');
    // Still shown while suspended (a suspended poll's record has no revision of its own to give).
    const before = (await statusOf('app')).lastFetchedRevision;
    expect(before).toBe(await app.git('rev-parse', 'HEAD'));
    await app.write('v2/other.yaml', configMap('other', 'three'));
    const pushed = await app.commitAndPush('three');
    // Polls go on while suspended (each records that it skipped); none fetches the new commit.
    const polledAt = async () => (await redis.hget(new RecordKeys(prefix).sourceStatus(`${team}.app`), 'polledAt')) ?? '';
    const since = new Date().toISOString();
    await expect.poll(async () => (await polledAt()) > since, { timeout: 10_000 }).toBe(true);
    expect((await statusOf('app')).lastFetchedRevision).toBe(before);
    expect(await valueOf('other')).toBe('two');
    await pushSource(sourceObject('app', { url: appUrl, path: 'v2', secretRef: { name: 'git-auth' } }));
    await expect.poll(() => valueOf('other'), { timeout: 30_000 }).toBe('three');
    await expect.poll(async () => (await statusOf('app')).lastFetchedRevision, { timeout: 15_000 }).toBe(pushed);
  });

  it('rotation: the server refuses the old password, the Secret is updated, the next fetch uses the new one without a restart', async () => {
    guarded.setBasicAuth({ username: 'bot', password: 'second-password' });
    await expect.poll(async () => (await ready('app'))?.reason, { timeout: 20_000 }).toBe('FetchFailed');
    expect((await statusOf('app')).lastError).toMatch(/refused the credentials \(HTTP 401\)/);
    expect(JSON.stringify(await getSource('app'))).not.toMatch(/first-password|second-password/);
    // A commit the old password cannot fetch: seeing it applied proves the new credential was used.
    await app.git('remote', 'set-url', 'origin', appUrl.replace('http://', 'http://bot:second-password@'));
    await app.write('v2/other.yaml', configMap('other', 'four'));
    const pushed = await app.commitAndPush('four');
    await applyObject(admin, gitSecret('second-password'));
    await expect.poll(() => valueOf('other'), { timeout: 30_000 }).toBe('four');
    await expect.poll(async () => (await statusOf('app')).lastFetchedRevision, { timeout: 15_000 }).toBe(pushed);
    await expect.poll(async () => (await ready('app'))?.status, { timeout: 15_000 }).toBe('True');
  });

  it('a missing Secret gives a clear condition naming the Source, the Secret and its keys, and nothing is pruned', async () => {
    const revision = (await statusOf('app')).lastFetchedRevision;
    await deleteObject(admin, { group: '', kind: 'Secret', namespace: team, name: 'git-auth' });
    await expect.poll(async () => (await ready('app'))?.reason, { timeout: 20_000 }).toBe('SecretNotFound');
    expect((await ready('app'))?.message).toMatch(/^Secret not found: team-a\/git-auth \(spec\.secretRef of Source team-a\/app\) does not exist; create it in namespace team-a with the keys username and password, .*Nothing is fetched, and nothing pruned, until it exists\.$/);
    // More failed polls come and go; what the source applied stays, and so does what it showed.
    const since = new Date().toISOString();
    const polledAt = async () => (await redis.hget(new RecordKeys(prefix).sourceStatus(`${team}.app`), 'polledAt')) ?? '';
    await expect.poll(async () => (await polledAt()) > since, { timeout: 10_000 }).toBe(true);
    expect(await valueOf('other')).toBe('four');
    expect(await statusOf('app')).toMatchObject({ lastFetchedRevision: revision, objects: 1 });
    await applyObject(admin, gitSecret('second-password'));
    await expect.poll(async () => (await ready('app'))?.status, { timeout: 20_000 }).toBe('True');
  });

  it('a Source with a GitHub App Secret fetches with installation tokens (from a local stand-in for GitHub\'s token endpoint)', async () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } });
    const github = await startGitHubAppServer({ appId: '1234', publicKey: key.publicKey, installations: [{ id: 42, owner: 'tidemark-org' }] });
    // The Git host takes any unexpired token the app server minted, as GitHub does (pushes use their own password).
    const host = await startGitServer({ basicAuth: { username: 'pusher', password: 'push-password' }, accepts: ({ username, password }) => username === 'x-access-token' && github.accepts(password) });
    try {
      const url = await host.createRepository('via-app');
      const copy = await host.workingCopy('via-app');
      await copy.write('app.yaml', configMap('from-app', 'minted'));
      await copy.commitAndPush('through a GitHub App');
      const data = { githubAppID: '1234', githubAppInstallationID: '42', githubAppPrivateKey: key.privateKey, githubAppBaseURL: github.baseUrl };
      await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'github-app', namespace: team, labels: { 'tidemark.dev/source': 'via-app' } }, data: Object.fromEntries(Object.entries(data).map(([name, value]) => [name, Buffer.from(value).toString('base64')])) });
      await createObject(admin, sourceObject('via-app', { url, secretRef: { name: 'github-app' } }));
      await expect.poll(() => valueOf('from-app'), { timeout: 30_000 }).toBe('minted');
      await expect.poll(async () => (await ready('via-app'))?.status, { timeout: 15_000 }).toBe('True');
      expect(github.minted.length).toBeGreaterThan(0);
      expect(github.refused).toEqual([]);
      const shown = JSON.stringify(await getSource('via-app'));
      for (const minted of github.minted) expect(shown).not.toContain(minted.token);
      await deleteObject(admin, { group: 'tidemark.dev', kind: 'Source', namespace: team, name: 'via-app' });
      await expect.poll(() => getSource('via-app'), { timeout: 30_000 }).toBeUndefined();
      expect(await valueOf('from-app')).toBeUndefined();
    } finally {
      await host.stop();
      await github.stop();
    }
  });

  it('a Source never deletes the Source that defines it: removed from its own Git, it is orphaned, not deleted', async () => {
    const selfUrl = await open.createRepository('self');
    const self = await open.workingCopy('self');
    const own = sourceObject('self', { url: selfUrl });
    await self.write('own.yaml', stringify(own));
    await self.write('tool.yaml', configMap('tool', 'kept'));
    await self.commitAndPush('a source that manages itself');
    await createObject(admin, own);
    await expect.poll(() => valueOf('tool'), { timeout: 30_000 }).toBe('kept');
    await self.delete('own.yaml');
    await self.commitAndPush('remove the source itself, by mistake');
    const record = () => reconciler.statusStore.get('mgmt', `tidemark.dev/Source/${team}/self`);
    await expect.poll(async () => findCondition((await record())?.conditions, 'Ready')?.reason, { timeout: 30_000 }).toBe('Orphaned');
    expect(findCondition((await record())?.conditions, 'Ready')?.message).toMatch(/defines source team-a\.self, the source that would delete it/);
    expect((await getSource('self'))?.metadata.deletionTimestamp).toBeUndefined();
    expect(await valueOf('tool')).toBe('kept');
    // Deleting it on purpose (kubectl) still works, and prunes what it applied.
    await deleteObject(admin, { group: 'tidemark.dev', kind: 'Source', namespace: team, name: 'self' });
    await expect.poll(() => valueOf('tool'), { timeout: 30_000 }).toBeUndefined();
    await expect.poll(() => getSource('self'), { timeout: 30_000 }).toBeUndefined();
  });

  it('a Source\'s serviceAccount and allow-list are honoured like a config-file source\'s: nothing outside them is applied', async () => {
    const fencedUrl = await open.createRepository('fenced');
    const fenced = await open.workingCopy('fenced');
    await fenced.write('inside.yaml', configMap('inside', 'no-rights'));
    await fenced.write('outside.yaml', stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'outside', namespace: 'kube-system' }, data: { value: 'escape' } }));
    await fenced.commitAndPush('one object in the team, one outside');
    // A ServiceAccount with no rights at all: anything applied as it is refused by the API server.
    await applyObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace: team } });
    await createObject(admin, sourceObject('fenced', { url: fencedUrl, serviceAccount: { namespace: team, name: 'deployer' }, allow: { namespaces: [team] } }));
    const stalled = async (key: string) => findCondition((await reconciler.statusStore.get('mgmt', key))?.conditions, 'Stalled');
    await expect.poll(async () => (await stalled('core/ConfigMap/kube-system/outside'))?.reason, { timeout: 30_000 }).toBe('NotAllowed');
    expect((await stalled('core/ConfigMap/kube-system/outside'))?.message).toMatch(/namespace kube-system is not in allow\.namespaces \(team-a\)/);
    await expect.poll(async () => (await stalled(`core/ConfigMap/${team}/inside`))?.reason, { timeout: 30_000 }).toBe('Forbidden');
    expect((await stalled(`core/ConfigMap/${team}/inside`))?.message).toMatch(/system:serviceaccount:team-a:deployer/);
    expect(await valueOf('inside')).toBeUndefined();
    expect(await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: 'outside' })).toBeUndefined();
  });

  it('a deleted Source whose ServiceAccount lost its rights says which object it cannot prune and why, and goes once annotated prune: "false"', async () => {
    const heldUrl = await open.createRepository('held');
    const held = await open.workingCopy('held');
    await held.write('held.yaml', configMap('held', 'applied'));
    await held.commitAndPush('one object');
    const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'pruner', namespace: team } };
    await applyObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'pruner', namespace: team } });
    await applyObject(admin, { ...rbac, kind: 'Role', rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }] } as KubernetesManifest);
    await applyObject(admin, { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pruner' }, subjects: [{ kind: 'ServiceAccount', name: 'pruner', namespace: team }] } as KubernetesManifest);
    await createObject(admin, sourceObject('held', { url: heldUrl, serviceAccount: { namespace: team, name: 'pruner' }, allow: { namespaces: [team] } }));
    await expect.poll(() => valueOf('held'), { timeout: 30_000 }).toBe('applied');
    // The ServiceAccount loses its rights, then the Source is deleted: its prune is refused by the API server.
    // The API server's authorizer learns of the deletion from its own watch: until it says no, a
    // prune could still go through (CI under load deleted the ConfigMap, and no PruneBlocked came).
    const mayDelete = () => plane.kubectl(['auth', 'can-i', 'delete', 'configmaps', '-n', team, '--as', `system:serviceaccount:${team}:pruner`]).then((answer) => answer.trim(), () => 'no');
    expect(await mayDelete()).toBe('yes');
    await deleteObject(admin, { group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', namespace: team, name: 'pruner' });
    await expect.poll(mayDelete, { timeout: 30_000 }).toBe('no');
    await deleteObject(admin, { group: 'tidemark.dev', kind: 'Source', namespace: team, name: 'held' });
    await expect.poll(async () => (await ready('held'))?.reason, { timeout: 30_000 }).toBe('PruneBlocked');
    const message = (await ready('held'))?.message ?? '';
    expect(message).toContain(`core/ConfigMap/${team}/held on cluster mgmt`);
    expect(message).toMatch(/configmaps "held" is forbidden: User "system:serviceaccount:team-a:pruner" cannot/);
    expect(message).toContain('tidemark.dev/prune: "false"');
    expect((await getSource('held'))?.metadata.finalizers).toEqual(['tidemark.dev/source-prune']);
    expect(await valueOf('held')).toBe('applied');
    // Orphaning it on purpose lets it finish; the object stays (objects deleted: 0).
    await plane.kubectl(['annotate', 'sources.tidemark.dev', '-n', team, 'held', 'tidemark.dev/prune=false']);
    await expect.poll(() => getSource('held'), { timeout: 30_000 }).toBeUndefined();
    expect(await valueOf('held')).toBe('applied');
  });

  it('a Source removed from Git is deleted, prunes what it applied, and then goes', async () => {
    await boot.delete('sources/app.yaml');
    await boot.commitAndPush('offboard team-a app');
    await expect.poll(() => valueOf('other'), { timeout: 30_000 }).toBeUndefined();
    await expect.poll(() => getSource('app'), { timeout: 30_000 }).toBeUndefined();
    await expect.poll(() => redis.sismember(new RecordKeys(prefix).sourceIndex, `${team}.app`), { timeout: 10_000 }).toBe(0);
    expect((await getObject(admin, { apiVersion: 'v1', kind: 'Namespace', name: team }))?.metadata.name).toBe(team);
  });
});
