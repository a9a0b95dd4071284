// Pre-delete hooks end to end: a whole reconciler on a control plane of its own with
// kube-controller-manager, kube-scheduler and KWOK nodes, and Source objects. The Job controller is
// real; the pods are KWOK's (stand-in: KWOK's pod stages play the container, so a Job pod completes
// without running anything). A Job that must fail is made to fail by the real Job controller: its pod
// can be scheduled nowhere, and its deadline passes. As Argo CD's PreDelete hooks, they run only when
// the Source is deleted, by weight, before anything of it is pruned; a failed one blocks the delete.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { ClusterConnection, createObject, deleteObject, getObject, listObjects } from '@tidemark/cluster';
import { findCondition, type Condition, type KubernetesManifest } from '@tidemark/contracts';
import { startControlPlane, startGitServer, type ControlPlane, type GitServer } from '@tidemark/testing';
import { startOrderingStack, type OrderingStack } from './ordering-stack';

const namespace = `predel-${randomUUID().slice(0, 6)}`;
let plane: ControlPlane;
let stack: OrderingStack;
let git: GitServer;

type Job = KubernetesManifest & { status?: { completionTime?: string; succeeded?: number; failed?: number } };

const job = (name: string, annotations: Record<string, string>, pod: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => stringify({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace, annotations },
  spec: { backoffLimit: 0, ...spec, template: { metadata: { labels: { app: name } }, spec: { restartPolicy: 'Never', containers: [{ name, image: 'registry.example/tool:1' }], ...pod } } },
});
// A finalizer of the test's own holds the ConfigMap once deleted, so when its delete came can be read.
const configMap = (name: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, finalizers: ['test.tidemark.dev/hold'] }, data: { value: name } });
const sourceObject = (name: string, url: string): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name, namespace }, spec: { url, ref: { branch: 'main' }, intervalMs: 1_000 },
});

const getSource = (name: string) => getObject(stack.connection, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name });
const sourceReady = async (name: string) => findCondition(((await getSource(name))?.status as { conditions?: Condition[] } | undefined)?.conditions, 'Ready');
const getConfigMap = (name: string) => getObject(stack.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const jobs = async () => (await listObjects(stack.connection, 'batch/v1', 'Job', namespace)) as Job[];
const runsOf = async (name: string) => (await jobs()).filter((item) => item.metadata.name.startsWith(`${name}-`));
const release = (name: string) => plane.kubectl(['patch', 'configmap', '-n', namespace, name, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(() => '');

/** pushRepository makes a repository with these files and returns its URL. */
async function pushRepository(name: string, files: Record<string, string>): Promise<string> {
  const url = await git.createRepository(name);
  const copy = await git.workingCopy(name);
  for (const [path, text] of Object.entries(files)) await copy.write(path, text);
  await copy.commitAndPush('the app');
  return url;
}

beforeAll(async () => {
  plane = await startControlPlane({ name: 'predelete', controllers: true });
  git = await startGitServer();
  // The namespace and the Sources' identity exist before the reconciler serves the namespace.
  const admin = ClusterConnection.connect({ cluster: 'predelete', kubeconfig: plane.kubeconfig });
  await createObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'deployer', namespace } };
  await createObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace } });
  await createObject(admin, { ...rbac, kind: 'Role', rules: [
    { apiGroups: ['', 'batch'], resources: ['configmaps', 'jobs', 'pods', 'pods/log'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'] },
  ] } as KubernetesManifest);
  await createObject(admin, { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' }, subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace }] } as KubernetesManifest);
  admin.close();
  stack = await startOrderingStack({
    kubeconfigPath: plane.kubeconfigPath, kubeconfig: plane.kubeconfig, redisUrl: inject('redisUrl'), dependencyRecheckMs: 2_000, cluster: 'predelete',
    config: { sourceObjects: { enabled: true, namespaces: [namespace], defaultServiceAccountName: 'deployer' } },
  });
}, 600_000);

afterAll(async () => {
  for (const name of ['settings', 'kept']) await release(name).catch(() => undefined);
  await stack?.stop();
  await git?.stop();
  await plane?.stop();
});

describe('pre-delete hooks on the real Job controller', () => {
  it('run only when the Source is deleted, by weight, before anything of it is pruned; then go with it', async () => {
    const url = await pushRepository('shop', {
      'settings.yaml': configMap('settings'),
      'backup.yaml': job('backup', { 'tidemark.dev/hook': 'pre-delete', 'tidemark.dev/hook-weight': '-1' }),
      // Helm's own annotations, mapped: weight 5 runs after -1; hook-succeeded deletes the run once it succeeded.
      'drain.yaml': job('drain', { 'helm.sh/hook': 'pre-delete', 'helm.sh/hook-weight': '5', 'helm.sh/hook-delete-policy': 'hook-succeeded' }),
    });
    await createObject(stack.connection, sourceObject('shop', url));
    await expect.poll(async () => (await getConfigMap('settings'))?.metadata.name, { timeout: 60_000 }).toBe('settings');
    // While the Source lives, its pre-delete hooks are listed and never run.
    await expect.poll(() => stack.readyCondition(`batch/Job/${namespace}/backup`), { timeout: 60_000 }).toMatch(/^True .*is a pre-delete hook: it runs when its Source is deleted/);
    expect(await jobs()).toEqual([]);

    await deleteObject(stack.connection, { group: 'tidemark.dev', kind: 'Source', namespace, name: 'shop' });
    // Watch the drain run while it exists: hook-succeeded deletes it once it completed, which on a
    // loaded machine can happen between two looks. So each look also asks whether the ConfigMap was
    // already being deleted while the drain run stood unfinished (the order this test is about), and a
    // run seen and then gone counts as done, since only its success deletes it.
    let drain: Job | undefined;
    let backup: Job | undefined;
    let drainGone = false;
    let prunedEarly = false;
    await expect.poll(async () => {
      const [seen] = await runsOf('drain');
      const [backupSeen] = await runsOf('backup');
      if (backupSeen) backup = backupSeen;
      const pruning = (await getConfigMap('settings'))?.metadata.deletionTimestamp !== undefined;
      if (seen) drain = seen;
      else if (drain) drainGone = true;
      if (pruning && seen && seen.status?.completionTime === undefined) prunedEarly = true;
      return pruning;
    }, { timeout: 120_000, interval: 100 }).toBe(true);
    // The hooks' runs go as soon as nothing else of the source is left: read as last seen.
    expect(backup?.status?.succeeded).toBe(1);
    expect(drain, 'the drain hook ran').toBeDefined();
    expect(drain?.status?.completionTime !== undefined || drainGone, 'the drain hook completed before anything was pruned').toBe(true);
    expect(prunedEarly, 'the ConfigMap was deleted while the drain hook was still running').toBe(false);
    // Weight -1 completed before weight 5 was created (the API server's clocks, to the second).
    expect(backup!.status!.completionTime! <= drain!.metadata.creationTimestamp!).toBe(true);
    // The ConfigMap is deleted only after both hooks succeeded.
    const pruned = (await getConfigMap('settings'))!.metadata.deletionTimestamp!;
    expect(backup!.status!.completionTime! <= pruned).toBe(true);
    if (drain?.status?.completionTime) expect(drain.status.completionTime <= pruned).toBe(true);
    await release('settings');
    // Then everything goes: the ConfigMap, both hooks' runs (drain's by hook-succeeded, backup's, which has no
    // delete policy, with its source), and the Source, whose finalizer is removed last.
    await expect.poll(() => getSource('shop'), { timeout: 60_000 }).toBeUndefined();
    // A run under way when the finalizer went ends after it: once the queue has nothing waiting or
    // running, nothing of the source can come back, so what stands now stays.
    await expect.poll(async () => (await stack.reconciler.queues.figures()).every(({ depth }) => depth.waiting + depth.active + depth.prioritized === 0), { timeout: 60_000 }).toBe(true);
    // A Job's delete waits for its pods (foreground, by the garbage collector): being deleted is gone enough.
    const standing = async () => (await jobs()).filter((item) => !item.metadata.deletionTimestamp).map((item) => item.metadata.name);
    await expect.poll(standing, { timeout: 30_000 }).toEqual([]);
    expect(await getConfigMap('settings')).toBeUndefined();
  });

  it('a pre-delete hook without a status record still runs before the prune (records lost with Redis, or a Source deleted at once)', async () => {
    const plain = stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lost', namespace }, data: { value: 'lost' } });
    const url = await pushRepository('lost', { 'lost.yaml': plain, 'audit.yaml': job('audit', { 'tidemark.dev/hook': 'pre-delete' }) });
    await createObject(stack.connection, sourceObject('lost', url));
    const hookKey = `batch/Job/${namespace}/audit`;
    await expect.poll(() => stack.readyCondition(hookKey), { timeout: 60_000 }).toMatch(/^True .*is a pre-delete hook/);
    await expect.poll(async () => (await getConfigMap('lost'))?.metadata.name, { timeout: 60_000 }).toBe('lost');
    // The hook's record is gone, as after a Source deleted before the hook's first run: the retire step does not know it.
    await stack.reconciler.statusStore.delete(stack.cluster, hookKey);

    await deleteObject(stack.connection, { group: 'tidemark.dev', kind: 'Source', namespace, name: 'lost' });
    let audit: Job | undefined;
    await expect.poll(async () => {
      const [seen] = await runsOf('audit');
      if (seen) audit = seen;
      return getSource('lost');
    }, { timeout: 120_000, interval: 100 }).toBeUndefined();
    expect(audit, 'the audit hook ran').toBeDefined();
    expect(await getConfigMap('lost')).toBeUndefined();
  });

  it('a failed pre-delete hook blocks the delete and says which hook failed and why; an orphaning delete lets the Source go', async () => {
    const url = await pushRepository('stuck', {
      'kept.yaml': configMap('kept'),
      // The Job controller fails it: its pod fits no node, and its deadline passes.
      'export.yaml': job('export', { 'tidemark.dev/hook': 'pre-delete' }, { nodeSelector: { 'no-such-node': 'true' } }, { activeDeadlineSeconds: 2 }),
    });
    await createObject(stack.connection, sourceObject('stuck', url));
    await expect.poll(async () => (await getConfigMap('kept'))?.metadata.name, { timeout: 60_000 }).toBe('kept');
    await expect.poll(() => stack.readyCondition(`batch/Job/${namespace}/export`), { timeout: 60_000 }).toMatch(/^True /);

    await deleteObject(stack.connection, { group: 'tidemark.dev', kind: 'Source', namespace, name: 'stuck' });
    await expect.poll(() => stack.readyCondition(`batch/Job/${namespace}/export`), { timeout: 120_000, interval: 250 })
      .toMatch(new RegExp(`^False HealthCheckFailed: pre-delete hook Job ${namespace}/export \\(run [0-9a-f]{10}, Job export-[0-9a-f]{10}\\) failed: .*deadline`, 'i'));
    await expect.poll(async () => (await sourceReady('stuck'))?.reason, { timeout: 60_000 }).toBe('PruneBlocked');
    const message = (await sourceReady('stuck'))?.message ?? '';
    expect(message).toContain(`core/ConfigMap/${namespace}/kept`);
    expect(message).toContain(`pre-delete hook Job ${namespace}/export failed, so nothing is deleted`);
    expect(await stack.readyCondition(`core/ConfigMap/${namespace}/kept`)).toMatch(/^False DependencyFailed: Source .*stuck is being deleted/);
    expect((await getConfigMap('kept'))?.metadata.deletionTimestamp).toBeUndefined();
    expect((await getSource('stuck'))?.metadata.finalizers).toEqual(['tidemark.dev/source-prune']);

    // Orphaning it on purpose lets it go; what it applied stays.
    await plane.kubectl(['annotate', 'sources.tidemark.dev', '-n', namespace, 'stuck', 'tidemark.dev/prune=false']);
    await expect.poll(() => getSource('stuck'), { timeout: 30_000 }).toBeUndefined();
    expect((await getConfigMap('kept'))?.metadata.deletionTimestamp).toBeUndefined();
  });
});
