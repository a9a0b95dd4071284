// Point 7: one live object, two Git objects. Two sources (or one source spelling an object two
// ways: the namespace left to the default, a cluster-scoped kind given a namespace, a kind written
// as its resource name) resolve to one identity through discovery. Neither declaration is applied,
// both say DuplicateObject naming both files and sources, and nothing is pruned; when one goes,
// the other is woken and applies. A declaration its own source may not apply (its allow-list
// forbids it) is no declaration: it cannot freeze another source's object (issue 34 item 5).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { getObject } from '@tidemark/cluster';
import { ConditionType, findCondition, isReconcileFailure, ownerAnnotation, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { PlacementCache } from '@tidemark/placement';
import { reconcile, type PipelineDependencies, type SourceTenancy } from '@tidemark/pipeline';
import { kubectl, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { gitDesiredState } from '@tidemark/fanout';
import { sourceDeclarations } from '../../apps/reconciler/src/declarations';

const id = randomUUID().slice(0, 8);
const namespace = `dup-${id}`;
let harness: PipelineHarness;
let git: GitServer;
let otherRepo: WorkingCopy;
let otherSource: GitSource;
let cacheDir: string;
let deps: PipelineDependencies;
const heads = new Map<string, string>();
const woken: ReconcileJob[] = [];
/** Per test: the sources' tenancy (none: each may apply anything its identity may). */
const tenancies = new Map<string, SourceTenancy>();
/** A duplicate waits (requeue) rather than stalls: the other source may resolve it without this one moving. */
const waiting = { kind: 'requeue', afterMs: 60_000 };

const configMap = (name: string, data: string, ns?: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${ns ? `  namespace: ${ns}\n` : ''}data:\n  from: ${data}\n`;
const live = (apiVersion: string, kind: string, ns: string | undefined, name: string) => getObject(harness.connection, { apiVersion, kind, ...(ns ? { namespace: ns } : {}), name });

async function push(repo: WorkingCopy, source: GitSource, message: string): Promise<string> {
  await repo.commitAndPush(message);
  const { revision } = await source.poll();
  heads.set(source.name, revision);
  return revision;
}

async function run(source: string, objectKey: string, reason: ReconcileJob['reason'] = 'git-change'): Promise<ReconcileOutcome | Error> {
  try {
    return await reconcile({ source, revision: heads.get(source)!, cluster: harness.cluster, objectKey, reason }, deps);
  } catch (error) {
    if (isReconcileFailure(error)) return error;
    throw error;
  }
}

/** runWoken runs what the runs woke, as the queue would, until nobody is woken (no ping-pong). */
async function runWoken(): Promise<string[]> {
  const ran: string[] = [];
  for (let round = 0; round < 10 && woken.length > 0; round += 1) {
    const job = woken.shift()!;
    ran.push(`${job.source}:${job.objectKey}`);
    await run(job.source, job.objectKey, job.reason);
  }
  expect(woken, 'waking ends').toEqual([]);
  return ran;
}

async function expectDuplicate(source: string, objectKey: string, places: RegExp[]): Promise<void> {
  const status = await harness.statusStore.get(harness.cluster, objectKey);
  const ready = findCondition(status?.conditions ?? [], ConditionType.Ready);
  expect(ready?.status, `${source} ${objectKey}`).toBe('False');
  expect(ready?.reason, `${source} ${objectKey}`).toBe('DuplicateObject');
  for (const place of places) expect(ready?.message, `${source} ${objectKey}`).toMatch(place);
}

/** carriedOver is what of a record one source's run could carry into another's: its owner, place, and what was applied. */
async function carriedOver(objectKey: string): Promise<Record<string, unknown>> {
  const record = await harness.statusStore.get(harness.cluster, objectKey);
  const fields = Object.entries({ source: record?.source, path: record?.path, inventory: record?.inventory, resources: record?.resources, appliedVersions: record?.appliedVersions, lastAppliedRevision: record?.lastAppliedRevision });
  return Object.fromEntries(fields.filter(([, value]) => value !== undefined));
}

beforeAll(async () => {
  // Objects written without a namespace land in this test's namespace, as in `default` elsewhere.
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), { pipeline: { defaultNamespace: namespace } });
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', namespace]);
  git = await startGitServer();
  const url = await git.createRepository(`other-${id}`);
  otherRepo = await git.workingCopy(`other-${id}`);
  cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-dup-cache-'));
  otherSource = new GitSource({ spec: parseSourceSpec({ name: 'other', url, ref: { branch: 'main' }, intervalMs: 1000 }, 'test'), cacheDir });
  await otherSource.open();
  const sources = new Map([['test', harness.source], ['other', otherSource]]);
  const desired = gitDesiredState(sources, new PlacementCache(), [{ name: harness.cluster, labels: {} }]);
  deps = {
    ...harness.deps,
    desired,
    declarations: sourceDeclarations({ sources, reader: desired, headOf: async (source) => heads.get(source), enqueue: async (job) => woken.push(job) }),
    tenancyFor: (source) => tenancies.get(source),
  };
});
afterAll(async () => {
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'clusterrole', `dup-reader-${id}`, '--ignore-not-found']).catch(() => undefined);
  await otherSource?.close();
  await git?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
  await harness?.stop();
});

describe('two Git objects claiming one live object', () => {
  it('across two sources, namespace written and left to the default: neither applies, both say so, nothing is pruned, the survivor applies', async () => {
    const name = `shared-${id}`;
    const ours = `core/ConfigMap/${namespace}/${name}`;
    const theirs = `core/ConfigMap/_/${name}`;
    await harness.repo.write('team/shared.yaml', configMap(name, 'test', namespace));
    await push(harness.repo, harness.source, 'test declares the ConfigMap');
    expect(await run('test', ours)).not.toBeInstanceOf(Error);
    expect((await live('v1', 'ConfigMap', namespace, name))?.data).toEqual({ from: 'test' });

    await otherRepo.write('other/shared.yaml', configMap(name, 'other'));
    await push(otherRepo, otherSource, 'other declares it too, without a namespace');
    const refused = await run('other', theirs);
    expect(refused).toEqual(waiting);
    await expectDuplicate('other', theirs, [/source test at team\/shared\.yaml:1/, /source other at other\/shared\.yaml:1/, /Nothing is applied or pruned/]);
    // The first declaration is woken, finds the second and says so too; then nobody wakes anybody.
    expect(await runWoken()).toEqual([`test:${ours}`, `other:${theirs}`]);
    await expectDuplicate('test', ours, [/source test at team\/shared\.yaml:1/, /source other at other\/shared\.yaml:1/]);
    const held = await live('v1', 'ConfigMap', namespace, name);
    expect(held?.data).toEqual({ from: 'test' });
    expect(held?.metadata.annotations?.[ownerAnnotation]).toBe(`test:${ours}`);

    // The first source lets go: the live object is not deleted (the other still declares it), and the other applies it.
    await harness.repo.delete('team/shared.yaml');
    await push(harness.repo, harness.source, 'test lets go');
    await run('test', ours, 'git-removed');
    expect(await live('v1', 'ConfigMap', namespace, name), 'not pruned').toBeDefined();
    expect(await runWoken()).toEqual([`other:${theirs}`]);
    const applied = await live('v1', 'ConfigMap', namespace, name);
    expect(applied?.data).toEqual({ from: 'other' });
    expect(applied?.metadata.annotations?.[ownerAnnotation]).toBe(`other:${theirs}`);
    expect(findCondition((await harness.statusStore.get(harness.cluster, theirs))?.conditions ?? [], ConditionType.Ready)?.status).toBe('True');
  });

  it('the same key in two sources shares one status record: the refused source\'s record carries nothing of the other\'s, and letting go does not erase it', async () => {
    const name = `same-key-${id}`;
    const key = `core/ConfigMap/${namespace}/${name}`;
    await harness.repo.write('same/a.yaml', configMap(name, 'test', namespace));
    await push(harness.repo, harness.source, 'test declares it');
    expect(await run('test', key)).not.toBeInstanceOf(Error);
    expect(await carriedOver(key)).toEqual(expect.objectContaining({ source: 'test', resources: [expect.objectContaining({ name })], lastAppliedRevision: heads.get('test') }));

    // Same cluster, same key: the same live object, so a DuplicateObject. Its record is other's, with none of test's fields.
    await otherRepo.write('same/b.yaml', configMap(name, 'other', namespace));
    await push(otherRepo, otherSource, 'other declares the same key');
    expect(await run('other', key)).toEqual(waiting);
    expect(await carriedOver(key)).toEqual({ source: 'other', path: 'same/b.yaml', inventory: [] });
    await runWoken();
    await expectDuplicate('test', key, [/source other at same\/b\.yaml:1/]);

    // other lets go while test's record stands: the live object stays and test's record is not erased by other's run.
    expect(await run('test', key)).toEqual(waiting);
    expect((await harness.statusStore.get(harness.cluster, key))?.source).toBe('test');
    await otherRepo.delete('same/b.yaml');
    await push(otherRepo, otherSource, 'other lets go');
    await run('other', key, 'git-removed');
    expect((await harness.statusStore.get(harness.cluster, key))?.source).toBe('test');
    expect((await live('v1', 'ConfigMap', namespace, name))?.data).toEqual({ from: 'test' });
    await runWoken();
    expect(await run('test', key)).not.toBeInstanceOf(Error);
    expect(findCondition((await harness.statusStore.get(harness.cluster, key))?.conditions ?? [], ConditionType.Ready)?.status).toBe('True');
  });

  it('a kind written as its resource name in another source is the same Deployment', async () => {
    const deployment = (kind: string) => `apiVersion: apps/v1\nkind: ${kind}\nmetadata:\n  name: web-${id}\n  namespace: ${namespace}\nspec:\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web } }\n    spec:\n      containers: [{ name: app, image: nginx:1.27 }]\n`;
    await harness.repo.write('web.yaml', deployment('Deployment'));
    await otherRepo.write('web.yaml', deployment('deployments'));
    await push(harness.repo, harness.source, 'a Deployment');
    await push(otherRepo, otherSource, 'the same, spelt as its resource');
    expect(await run('test', `apps/Deployment/${namespace}/web-${id}`)).toEqual(waiting);
    await runWoken();
    await expectDuplicate('test', `apps/Deployment/${namespace}/web-${id}`, [/source other at web\.yaml:1/]);
    await expectDuplicate('other', `apps/deployments/${namespace}/web-${id}`, [/source test at web\.yaml:1/]);
    expect(await live('apps/v1', 'Deployment', namespace, `web-${id}`), 'neither applied').toBeUndefined();
  });

  it('in one source, a cluster-scoped kind given a namespace and given none', async () => {
    const role = (ns?: string) => `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: dup-reader-${id}\n${ns ? `  namespace: ${ns}\n` : ''}rules: []\n`;
    await harness.repo.write('roles/a.yaml', role());
    await harness.repo.write('roles/b.yaml', role(namespace));
    await push(harness.repo, harness.source, 'one ClusterRole, two spellings');
    const bare = `rbac.authorization.k8s.io/ClusterRole/_/dup-reader-${id}`;
    const namespaced = `rbac.authorization.k8s.io/ClusterRole/${namespace}/dup-reader-${id}`;
    expect(await run('test', bare)).toEqual(waiting);
    await runWoken();
    await expectDuplicate('test', bare, [/roles\/a\.yaml:1/, /roles\/b\.yaml:1/]);
    await expectDuplicate('test', namespaced, [/roles\/a\.yaml:1/, /roles\/b\.yaml:1/]);
    expect(await live('rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, `dup-reader-${id}`), 'neither applied').toBeUndefined();
  });

  it('a declaration its own allow-list forbids freezes nothing: the owner\'s update applies, the intruder is refused NotAllowed', async () => {
    const name = `frozen-${id}`;
    const ours = `core/ConfigMap/${namespace}/${name}`;
    const theirs = `core/ConfigMap/_/${name}`;
    await harness.repo.write('frozen.yaml', configMap(name, 'v1', namespace));
    await push(harness.repo, harness.source, 'test declares v1');
    expect(await run('test', ours)).not.toBeInstanceOf(Error);
    // other may apply only in its own namespace; it declares test's object anyway.
    tenancies.set('other', { allow: { namespaces: ['other-team'], kinds: ['*'], denyKinds: [], clusterKinds: [], clusters: ['*'], createNamespaces: false, serviceAccounts: [] } });
    try {
      await otherRepo.write('frozen.yaml', configMap(name, 'intruder'));
      await push(otherRepo, otherSource, 'other declares the same object, outside its allow-list');
      const refused = await run('other', theirs);
      expect((refused as Error).message).toMatch(new RegExp(`namespace ${namespace} is not in allow.namespaces \\(other-team\\)`));
      await harness.repo.write('frozen.yaml', configMap(name, 'v2', namespace));
      await push(harness.repo, harness.source, 'test updates to v2');
      const updated = await run('test', ours);
      expect(updated).not.toBeInstanceOf(Error);
      expect(updated).not.toEqual(waiting);
      expect((await live('v1', 'ConfigMap', namespace, name))?.data).toEqual({ from: 'v2' });
      expect(findCondition((await harness.statusStore.get(harness.cluster, ours))?.conditions ?? [], ConditionType.Ready)?.status).toBe('True');
    } finally {
      tenancies.clear();
      woken.length = 0;
    }
  });

  it('a declaration its own ServiceAccount may not write freezes nothing either: the owner\'s update applies', async () => {
    const name = `unwritable-${id}`;
    const ours = `core/ConfigMap/${namespace}/${name}`;
    await harness.repo.write('unwritable.yaml', configMap(name, 'v1', namespace));
    await push(harness.repo, harness.source, 'test declares v1');
    expect(await run('test', ours)).not.toBeInstanceOf(Error);
    // other acts as a ServiceAccount with no rights here (a tenant's Source without an allow-list).
    tenancies.set('other', { serviceAccount: { namespace, name: 'nobody' } });
    try {
      await otherRepo.write('unwritable.yaml', configMap(name, 'intruder', namespace));
      await push(otherRepo, otherSource, 'other declares the same object, which its identity may not write');
      await harness.repo.write('unwritable.yaml', configMap(name, 'v2', namespace));
      await push(harness.repo, harness.source, 'test updates to v2');
      const updated = await run('test', ours);
      expect(updated).not.toBeInstanceOf(Error);
      expect(updated).not.toEqual(waiting);
      expect((await live('v1', 'ConfigMap', namespace, name))?.data).toEqual({ from: 'v2' });
    } finally {
      tenancies.clear();
      woken.length = 0;
    }
  });

  it('when the copy that was refused as a duplicate goes, the owner is woken at once and applies its update', async () => {
    const name = `resolved-${id}`;
    const ours = `core/ConfigMap/${namespace}/${name}`;
    const theirs = `core/ConfigMap/_/${name}`;
    await harness.repo.write('resolved.yaml', configMap(name, 'v1', namespace));
    await push(harness.repo, harness.source, 'test declares v1');
    expect(await run('test', ours)).not.toBeInstanceOf(Error);
    await otherRepo.write('resolved.yaml', configMap(name, 'copy'));
    await push(otherRepo, otherSource, 'other copies it');
    expect(await run('other', theirs)).toEqual(waiting);
    await runWoken();
    await harness.repo.write('resolved.yaml', configMap(name, 'v2', namespace));
    await push(harness.repo, harness.source, 'test updates to v2 while the copy stands');
    expect(await run('test', ours)).toEqual(waiting);
    expect((await live('v1', 'ConfigMap', namespace, name))?.data).toEqual({ from: 'v1' });

    // The copy goes: its removal wakes the owner, which applies v2 now, not at its next recheck.
    await otherRepo.delete('resolved.yaml');
    await push(otherRepo, otherSource, 'other removes its copy');
    await run('other', theirs, 'git-removed');
    expect(await runWoken()).toEqual([`test:${ours}`]);
    expect((await live('v1', 'ConfigMap', namespace, name))?.data).toEqual({ from: 'v2' });
  });
});
