// Issue 34's "done" suite: two tenants on one reconciler, at once. team-a (the attacker) and team-b
// (the victim) each have Source objects in their own namespace, a ServiceAccount that may write that
// namespace only, their own Git repository and their own sops key. While team-b's Source runs,
// team-a tries, black-box (git push, kubectl, redis-cli, HTTP), every attack of the issue that a
// tenant can drive: a Source with no identity, Placement rules acting as team-b's ServiceAccount, a
// secretRef to a Secret that did not opt in, Source limits above the operator's, declaring team-b's
// object to freeze it, team-b's sops file copied, a redirect to another origin, a HealthRule of
// nested .all, a Redis-rewritten namespace, the ownership annotation forged under Tidemark's field
// manager, and a mass prune by changing a Source's path. At the end team-b's objects are unchanged
// (same UIDs; untouched ones at the same resourceVersion) and its push during the attacks went live,
// and team-a has nothing outside its namespace, and team-b's password is nowhere team-a can read.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { applyObject, applyStatus, ClusterConnection, createObject, getObject } from '@tidemark/cluster';
import { findCondition, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { kubectl, renderToolsDir, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { renderTools, type Tools } from '../render/render-fixture';
import { createTenant, newAgeKey, sopsEncrypt, startRecordingServer, statusHashHolding, type RecordingServer } from './support/tenants';

const id = randomUUID().slice(0, 8);
const teamA = `team-a-${id}`;
const teamB = `team-b-${id}`;
const cluster = 'rig';
const prefix = `two-${id}`;
const password = `team-b-db-password-${randomBytes(8).toString('hex')}`;
const ciPassword = `team-a-ci-password-${randomBytes(8).toString('hex')}`;
const deployToken = `deploy-token-${randomBytes(8).toString('hex')}`;
const canaryText = `internal-canary-${randomBytes(8).toString('hex')}`;
const kubeSystemCanary = `team-a-was-here-${id}`;
const group = `two-${id}.example`;
const kubeconfigPath = inject('kubeconfigPath');
/** team-a's Sources: every attack has its own, so each says what was refused on its own status. */
const teamASources = ['apps', 'noid', 'borrow', 'private', 'moved', 'big', 'spread'];
const spread = Array.from({ length: 6 }, (_, index) => `spread-${index}`);
const webAppKey = `tidemark.dev/WebApp/${teamB}/shop`;
const logLines: string[] = [];
let tools: Tools;
let work: string;
let git: GitServer;
let canary: RecordingServer;
let redirector: RecordingServer;
let admin: ClusterConnection;
let redis: Redis;
let reconciler: RunningReconciler;
const copies = new Map<string, WorkingCopy>();
const urls = new Map<string, string>();
/** team-b's objects as they were before team-a started: uid and resourceVersion. */
const before = new Map<string, { uid?: string; resourceVersion?: string }>();

const b64 = (text: string) => Buffer.from(text).toString('base64');
const yaml = (...objects: unknown[]) => objects.map((object) => stringify(object)).join('---\n');
const configMap = (namespace: string | undefined, name: string, data: Record<string, string>) =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(namespace ? { namespace } : {}) }, data });
const live = (kind: string, namespace: string, name: string, apiVersion = 'v1') => getObject(admin, { apiVersion, kind, namespace, name });
const sourceOf = (namespace: string, name: string) => getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name });
const readyOf = async (namespace: string, name: string) => findCondition(((await sourceOf(namespace, name))?.status as { conditions?: Condition[] } | undefined)?.conditions, 'Ready');
const recordOf = (key: string) => reconciler.statusStore.get(cluster, key);
const log = () => logLines.join('');

async function repository(name: string, files: Record<string, string>): Promise<void> {
  urls.set(name, await git.createRepository(`${name}-${id}`));
  const copy = await git.workingCopy(`${name}-${id}`);
  for (const [path, text] of Object.entries(files)) await copy.write(path, text);
  await copy.commitAndPush(`${name} first`);
  copies.set(name, copy);
}

const source = (namespace: string, name: string, spec: Record<string, unknown>, url = urls.get(`${namespace === teamA ? 'a' : 'b'}-${name}`)): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name, namespace },
  spec: { url, ref: { branch: 'main' }, intervalMs: 1_000, ...spec },
});
const deployer = (namespace: string) => ({ serviceAccount: { namespace, name: 'deployer' } });
const ownKeys = { decryption: { secretRef: { name: 'sops-keys' } } };

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
  spec: { group, scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
};
const sevenNested = 'spec.a.all(a, spec.a.all(b, spec.a.all(c, spec.a.all(d, spec.a.all(e, spec.a.all(f, spec.a.all(g, a + b + c + d + e + f + g >= 0)))))))';
const webApp = (config: boolean) => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'shop', namespace: teamB },
  spec: { image: 'nginx:1.27', ...(config ? { features: { config: { enabled: true, data: { A: 'b' } } } } : {}) },
});

/** teamBConfigMaps are team-b's ConfigMaps the WebApp rendered (its owner annotation, not the forged `keep`). */
async function renderedByShop(): Promise<string[]> {
  const list = JSON.parse(await kubectl(kubeconfigPath, ['get', 'configmaps', '-n', teamB, '-o', 'json'])) as { items: KubernetesManifest[] };
  return list.items.filter((item) => item.metadata.name !== 'keep' && item.metadata.annotations?.['tidemark.dev/owner'] === `${teamB}.apps:${webAppKey}`).map((item) => item.metadata.name);
}

beforeAll(async () => {
  tools = await renderTools();
  work = await mkdtemp(join(tmpdir(), 'tidemark-two-tenants-'));
  admin = ClusterConnection.connect({ cluster, kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
  git = await startGitServer();
  // An internal endpoint team-a would like to read, and a server that redirects there.
  canary = await startRecordingServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(canaryText));
  redirector = await startRecordingServer((request, response) => response.writeHead(302, { location: `${canary.url}${request.url}` }).end());

  const keyA = await newAgeKey(tools, work, 'team-a');
  const keyB = await newAgeKey(tools, work, 'team-b');
  await createTenant(admin, kubeconfigPath, teamA, keyA, 'apps');
  await createTenant(admin, kubeconfigPath, teamB, keyB, 'apps');
  // The operator installed a CRD both teams may use.
  await applyObject(admin, widgetCrd as KubernetesManifest);
  const plain = join(work, 'db-plain.yaml');
  await writeFile(plain, stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, type: 'Opaque', stringData: { password } }));
  const teamBFile = await sopsEncrypt(tools, work, keyB.recipient, plain);

  // team-b: a ConfigMap, a sops Secret and a WebApp that renders a ConfigMap of its own.
  await repository('b-apps', {
    'app/victim.yaml': yaml(configMap(teamB, 'victim', { version: 'v1' })),
    'db/kustomization.yaml': stringify({ namespace: teamB, resources: ['db.enc.yaml'] }),
    'db/db.enc.yaml': teamBFile,
    'shop.yaml': yaml(webApp(true)),
  });
  // team-a's repositories, one per attack.
  await repository('a-apps', {
    'mine.yaml': yaml(configMap(teamA, 'mine', { by: 'team-a' })),
    // Declaring team-b's object, to freeze it.
    'freeze.yaml': yaml(configMap(teamB, 'victim', { version: 'team-a' })),
    // team-b's encrypted file, byte for byte, into a ConfigMap and as a unit of team-a.
    'leak/kustomization.yaml': stringify({ namespace: teamA, configMapGenerator: [{ name: 'leak', files: ['db.enc.yaml'] }], generatorOptions: { disableNameSuffixHash: true } }),
    'leak/db.enc.yaml': teamBFile,
    'db/kustomization.yaml': stringify({ namespace: teamA, resources: ['db.enc.yaml'] }),
    'db/db.enc.yaml': teamBFile,
    // Seven nested .all over a list of ten: 10^7 steps on the event loop, were it run.
    'rules/costly.yaml': stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'HealthRule', metadata: { name: 'costly', namespace: teamA }, spec: { apiVersion: `${group}/v1`, kind: 'Widget', current: sevenNested } }),
    'widget.yaml': stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: teamA }, spec: { a: Array.from({ length: 10 }, (_, index) => index) } }),
    // No namespace: Git and discovery place it, whatever a status record says.
    'nons.yaml': yaml(configMap(undefined, `nons-${id}`, { version: 'v1' })),
  });
  await repository('a-noid', {
    'escape.yaml': yaml(configMap('kube-system', kubeSystemCanary, { by: 'team-a' })),
    'admin.yaml': stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `team-a-admin-${id}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: teamA }],
    }),
  });
  await repository('a-borrow', {
    'placement.yaml': stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Placement', metadata: { name: 'borrow' }, spec: { rules: [{ paths: ['team-b/'], serviceAccount: { namespace: teamB, name: 'deployer' } }] } }),
    'team-b/pwned.yaml': yaml(configMap(teamB, 'pwned', { by: 'team-a' })),
  });
  // 17 MiB of one ConfigMap, compressed to almost nothing: over the operator's 16 MiB.
  await repository('a-big', { 'big.yaml': yaml(configMap(teamA, 'big', { v: 'a'.repeat(17 * 1024 * 1024) })) });
  await repository('a-spread', {
    ...Object.fromEntries(spread.map((name) => [`app/${name}.yaml`, yaml(configMap(teamA, name, { by: 'team-a' }))])),
    'elsewhere/README.md': 'nothing here\n',
  });

  await writeFile(join(work, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(work, 'cache'),
    sources: [{ name: 'boot', url: await git.createRepository(`boot-${id}`).then(async (url) => {
      const copy = await git.workingCopy(`boot-${id}`);
      await copy.write('README.md', 'nothing\n');
      await copy.commitAndPush('boot');
      return url;
    }), ref: { branch: 'main' }, intervalMs: 60_000 }],
    clusters: [{ name: cluster, kubeconfig: kubeconfigPath }],
    // The operator's key is team-b's, as when one key served every team: only `boot` may use it.
    render: { toolsDir: renderToolsDir, sops: { ageKeyFile: keyB.file, trustedSources: ['boot'] } },
    // The README's simplest setup: Sources served in both teams' namespaces, no identity default, no ceiling.
    sourceObjects: { enabled: true, namespaces: [teamA, teamB] },
    http: { port: 0, host: '127.0.0.1' },
  }));
  const logStream = new Writable({ write(chunk: Buffer, _encoding, done) { logLines.push(chunk.toString()); done(); } });
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(work, 'tidemark.yaml') }), createLogger('debug', logStream));

}, 300_000);

afterAll(async () => {
  await reconciler?.stop();
  for (const [namespace, names] of [[teamA, teamASources], [teamB, ['apps']]] as const) {
    for (const name of names) await kubectl(kubeconfigPath, ['patch', 'source', name, '-n', namespace, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(() => undefined);
    await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  }
  await kubectl(kubeconfigPath, ['delete', 'configmap', kubeSystemCanary, '-n', 'kube-system', '--ignore-not-found']).catch(() => undefined);
  await kubectl(kubeconfigPath, ['delete', 'clusterrolebinding', `team-a-admin-${id}`, '--ignore-not-found']).catch(() => undefined);
  await kubectl(kubeconfigPath, ['delete', 'customresourcedefinition', `widgets.${group}`, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  redis?.disconnect();
  admin?.close();
  canary?.close();
  redirector?.close();
  await git?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('two tenants on one reconciler: team-a attacks team-b, all at once', () => {
  it('runs team-b\'s Source: its ConfigMap, sops Secret and WebApp go live', async () => {
    await createObject(admin, source(teamB, 'apps', { ...deployer(teamB), ...ownKeys }));
    await applyObject(admin, configMap(teamB, 'keep', { keep: 'me' }) as KubernetesManifest);
    await expect.poll(async () => ((await live('ConfigMap', teamB, 'victim'))?.data as { version?: string } | undefined)?.version, { timeout: 60_000, interval: 250 }).toBe('v1');
    await expect.poll(async () => (await live('Secret', teamB, 'db') as { data?: Record<string, string> } | undefined)?.data?.password, { timeout: 60_000, interval: 250 }).toBe(b64(password));
    await expect.poll(renderedByShop, { timeout: 60_000, interval: 500 }).toHaveLength(1);
    for (const [kind, name, apiVersion] of [['ConfigMap', 'victim'], ['ConfigMap', 'keep'], ['Secret', 'db'], ['Secret', 'sops-keys'], ['WebApp', 'shop', 'tidemark.dev/v1alpha1'], ['ServiceAccount', 'deployer']] as const) {
      const object = await live(kind, teamB, name, apiVersion);
      before.set(`${kind}/${name}`, { uid: object?.metadata.uid, resourceVersion: object?.metadata.resourceVersion });
    }
  });

  it('refuses each of team-a\'s Sources that reaches past its namespace, saying why on the Source', async () => {
    await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ci-token', namespace: teamA }, data: { username: b64('ci'), password: b64(ciPassword) } } as KubernetesManifest);
    await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'moved-token', namespace: teamA, labels: { 'tidemark.dev/source': 'moved' } }, data: { extraHeader: b64(`X-Deploy-Token: ${deployToken}`) } } as KubernetesManifest);
    await Promise.all([
      createObject(admin, source(teamA, 'apps', { ...deployer(teamA), ...ownKeys })),
      createObject(admin, source(teamA, 'noid', {})),
      createObject(admin, source(teamA, 'borrow', { ...deployer(teamA), allow: { namespaces: [teamA, teamB], serviceAccounts: [`${teamB}/*`] } })),
      createObject(admin, source(teamA, 'private', { ...deployer(teamA), secretRef: { name: 'ci-token' } }, `${canary.url}/private.git`)),
      createObject(admin, source(teamA, 'moved', { ...deployer(teamA), secretRef: { name: 'moved-token' } }, `${redirector.url}/moved.git`)),
      createObject(admin, source(teamA, 'big', { ...deployer(teamA), limits: { maxObjectMiB: 1024, maxFetchMiB: 8192, maxRevisionMiB: 4096 } })),
      createObject(admin, source(teamA, 'spread', { ...deployer(teamA), path: 'app' })),
    ]);
    const verdicts = async () => Object.fromEntries(await Promise.all(['noid', 'borrow', 'private', 'moved', 'big'].map(async (name) => {
      const ready = await readyOf(teamA, name);
      return [name, ready?.status === 'False' ? ready.reason : undefined];
    })));
    await expect.poll(verdicts, { timeout: 60_000, interval: 500 }).toEqual({
      noid: 'IdentityRequired', borrow: 'SourceInvalid', private: 'SecretNotAllowed', moved: expect.any(String), big: expect.any(String),
    });
    expect((await readyOf(teamA, 'borrow'))?.message).toContain(`spec.allow.serviceAccounts[0]: a Source in ${teamA} may let Placement rules act as ServiceAccounts in ${teamA} only`);
    expect((await readyOf(teamA, 'moved'))?.message).toMatch(/the server answered HTTP 302 to another origin/);
    expect((await readyOf(teamA, 'big'))?.message).toMatch(/a blob of 17\.0 MiB was pushed, more than the limit of 16\.0 MiB per object/);
    expect((await readyOf(teamA, 'big'))?.message).toContain('a source\'s own limits may only lower the reconciler\'s, never raise them');
    // team-a's own objects are applied: the boundary, not the reconciler, is what stops the rest.
    await expect.poll(async () => (await live('ConfigMap', teamA, 'mine'))?.data, { timeout: 60_000, interval: 250 }).toEqual({ by: 'team-a' });
    await expect.poll(async () => (await Promise.all(spread.map((name) => live('ConfigMap', teamA, name)))).every(Boolean), { timeout: 60_000, interval: 250 }).toBe(true);
    await expect.poll(() => log().includes(`leak/db.enc.yaml could not be decrypted with the keys of source ${teamA}.apps`), { timeout: 60_000, interval: 500 }).toBe(true);
    expect(log()).toContain(`db/db.enc.yaml could not be decrypted with the keys of source ${teamA}.apps`);
    // The HealthRule was refused at load, and the Widget it would judge is applied all the same.
    await expect.poll(async () => findCondition((await recordOf(`${group}/Widget/${teamA}/w`))?.conditions, 'Ready')?.message, { timeout: 60_000, interval: 250 })
      .toMatch(/Its HealthRule was refused \(rules\/costly\.yaml: HealthRule .*spec\.current: .* costs an estimated \S+ steps/);
    // The namespace-less ConfigMap goes where Git puts it (`default`, which team-a's account may not write).
    await expect.poll(async () => findCondition((await recordOf(`core/ConfigMap/_/nons-${id}`))?.conditions, 'Stalled')?.message, { timeout: 60_000, interval: 250 }).toContain('"default"');
  });

  it('keeps team-b live and in charge while team-a forges, rewrites Redis and moves its Source', async () => {
    // A Redis writer moves team-a's namespace-less object into team-b's namespace; team-a pushes a change to it.
    const nonsKey = `core/ConfigMap/_/nons-${id}`;
    const hash = await statusHashHolding(redis, prefix, cluster, nonsKey);
    const record = JSON.parse((await redis.hget(hash, nonsKey))!) as Record<string, unknown>;
    await redis.hset(hash, nonsKey, JSON.stringify({ ...record, namespace: teamB }));
    await copies.get('a-apps')!.write('nons.yaml', yaml(configMap(undefined, `nons-${id}`, { version: 'v2' })));
    const teamARevision = await copies.get('a-apps')!.commitAndPush('nons v2');

    // Someone who may patch team-b's ConfigMap and write the WebApp's status forges Tidemark's ownership of `keep`.
    await kubectl(kubeconfigPath, ['apply', '--server-side', '--field-manager=tidemark', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: teamB, annotations: { 'tidemark.dev/owner': `${teamB}.apps:${webAppKey}` } },
    }));
    const shop = (await live('WebApp', teamB, 'shop', 'tidemark.dev/v1alpha1'))!;
    const inventory = (shop.status as { inventory?: unknown[] } | undefined)?.inventory ?? [];
    await applyStatus(admin.asManager('intruder'), shop, { inventory: [...inventory, { apiVersion: 'v1', kind: 'ConfigMap', namespace: teamB, name: 'keep' }] });

    // A small prune of team-a's own, then its Source's path changes at the same commit: the rest would go.
    await copies.get('a-spread')!.delete(`app/${spread[0]}.yaml`);
    await copies.get('a-spread')!.commitAndPush('remove one');
    await expect.poll(async () => live('ConfigMap', teamA, spread[0]!), { timeout: 30_000, interval: 250 }).toBeUndefined();
    await kubectl(kubeconfigPath, ['patch', 'source', 'spread', '-n', teamA, '--type=merge', '-p', '{"spec":{"path":"elsewhere"}}']);

    // team-b pushes v2 of its ConfigMap (which team-a declares too) and drops the WebApp's config feature.
    await copies.get('b-apps')!.write('app/victim.yaml', yaml(configMap(teamB, 'victim', { version: 'v2' })));
    await copies.get('b-apps')!.write('shop.yaml', yaml(webApp(false)));
    const pushedAt = Date.now();
    await copies.get('b-apps')!.commitAndPush('victim v2, shop without config');
    await expect.poll(async () => ((await live('ConfigMap', teamB, 'victim'))?.data as { version?: string } | undefined)?.version, { timeout: 30_000, interval: 250 }).toBe('v2');
    expect(Date.now() - pushedAt, 'team-b\'s push went live within 30 s').toBeLessThan(30_000);
    // The WebApp's real child is pruned; the forged one stays.
    await expect.poll(renderedByShop, { timeout: 30_000, interval: 500 }).toEqual([]);
    expect((await live('ConfigMap', teamB, 'keep'))?.metadata.uid).toBe(before.get('ConfigMap/keep')?.uid);

    // team-a's object was tried where Git puts it, not where Redis said.
    await expect.poll(async () => (await recordOf(nonsKey))?.lastAttemptedRevision, { timeout: 30_000, interval: 250 }).toBe(teamARevision);
    const stalled = findCondition((await recordOf(nonsKey))?.conditions, 'Stalled')?.message ?? '';
    expect(stalled).toContain('"default"');
    expect(stalled).not.toContain(teamB);
    // The path change is held for confirmation, not 5 deletes.
    await expect.poll(async () => (await recordOf(`core/ConfigMap/${teamA}/${spread[3]}`))?.failure?.code, { timeout: 30_000, interval: 250 }).toBe('PruneAwaitingConfirmation');
    expect((await Promise.all(spread.slice(1).map((name) => live('ConfigMap', teamA, name)))).every(Boolean)).toBe(true);
    // Deleting the Source at the same revision is no way round the hold either (checked at the end).
    await kubectl(kubeconfigPath, ['delete', 'source', 'spread', '-n', teamA, '--wait=false']);
  });

  it('leaves team-b\'s objects as team-b made them: same UIDs, untouched ones at the same resourceVersion', async () => {
    for (const [kind, name, apiVersion] of [['ConfigMap', 'victim'], ['ConfigMap', 'keep'], ['Secret', 'db'], ['Secret', 'sops-keys'], ['WebApp', 'shop', 'tidemark.dev/v1alpha1'], ['ServiceAccount', 'deployer']] as const) {
      const object = await live(kind, teamB, name, apiVersion);
      expect(object?.metadata.uid, `${kind} ${name}`).toBe(before.get(`${kind}/${name}`)?.uid);
    }
    for (const key of ['Secret/db', 'Secret/sops-keys', 'ServiceAccount/deployer']) {
      const [kind, name] = key.split('/') as [string, string];
      expect((await live(kind, teamB, name))?.metadata.resourceVersion, key).toBe(before.get(key)?.resourceVersion);
    }
    const victim = await live('ConfigMap', teamB, 'victim');
    expect(victim?.data).toEqual({ version: 'v2' });
    expect(victim?.metadata.annotations?.['tidemark.dev/owner']).toBe(`${teamB}.apps:core/ConfigMap/${teamB}/victim`);
    expect((await live('Secret', teamB, 'db') as { data?: Record<string, string> } | undefined)?.data?.password).toBe(b64(password));
    expect(findCondition(((await sourceOf(teamB, 'apps'))?.status as { conditions?: Condition[] } | undefined)?.conditions, 'Ready')?.status).toBe('True');
  });

  it('gives team-a nothing outside its boundary', async () => {
    expect(await live('ConfigMap', 'kube-system', kubeSystemCanary)).toBeUndefined();
    expect(await live('ConfigMap', teamB, 'pwned')).toBeUndefined();
    expect((await Promise.all(spread.slice(1).map((name) => live('ConfigMap', teamA, name)))).every(Boolean), 'team-a\'s held objects').toBe(true);
    const bindings = JSON.parse(await kubectl(kubeconfigPath, ['get', 'clusterrolebindings', '-o', 'json'])) as { items: { metadata: { name: string }; subjects?: { namespace?: string }[] }[] };
    expect(bindings.items.filter((binding) => binding.subjects?.some((subject) => subject.namespace === teamA)).map((binding) => binding.metadata.name)).toEqual([]);
    // Nothing in team-b's namespace is team-a's, by owner annotation or content.
    const teamBObjects = await kubectl(kubeconfigPath, ['get', 'configmaps,secrets,serviceaccounts,roles,rolebindings', '-n', teamB, '-o', 'json']);
    expect(teamBObjects).not.toContain(`${teamA}.`);
    expect(teamBObjects).not.toContain('team-a');
    // No credential left for another origin, and nothing of the internal endpoint came back.
    expect(redirector.requests.length).toBeGreaterThan(0);
    expect(canary.requests.filter((request) => request.url.startsWith('/moved'))).toEqual([]);
    for (const request of [...canary.requests, ...redirector.requests.filter((request) => !request.url.startsWith('/moved'))]) {
      expect(JSON.stringify(request.headers)).not.toContain(b64(`ci:${ciPassword}`));
      expect(JSON.stringify(request.headers)).not.toContain(ciPassword);
    }
    // team-b's password, team-a's CI password and the canary are nowhere team-a can read: objects, statuses, Events, the log.
    const teamAObjects = await kubectl(kubeconfigPath, ['get', 'configmaps,secrets,sources,events,widgets.' + group, '-n', teamA, '-o', 'json']);
    expect(teamAObjects).not.toContain(password);
    expect(teamAObjects).not.toContain(b64(password));
    expect(teamAObjects).not.toContain(canaryText);
    expect(await live('ConfigMap', teamA, 'leak')).toBeUndefined();
    expect(await live('Secret', teamA, 'db')).toBeUndefined();
    for (const secret of [password, b64(password), canaryText, ciPassword, deployToken]) expect(log(), 'the reconciler\'s log').not.toContain(secret);
  });

  it('prunes team-b\'s object when team-b removes it, though team-a still declares it, and team-a\'s copy does not take its place', async () => {
    await copies.get('b-apps')!.delete('app/victim.yaml');
    await copies.get('b-apps')!.commitAndPush('victim goes');
    await expect.poll(() => live('ConfigMap', teamB, 'victim'), { timeout: 30_000, interval: 250 }).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await live('ConfigMap', teamB, 'victim')).toBeUndefined();
  });
});
