// A preview of a real feature branch: a real Git server with main reconciled into the shared
// kube-apiserver, a field changed by another manager, then a pushed branch that changes, creates,
// deletes, breaks (a port the API server refuses), adds RBAC and changes a Secret. previewRevision
// reports it with server-side dry-runs; the caller checks the report or shows it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { applyObject, getObject } from '@tidemark/cluster';
import type { PreviewReport } from '@tidemark/contracts';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { previewRevision } from '@tidemark/preview';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

export interface PreviewScenario {
  harness: PipelineHarness;
  namespace: string;
  /** The branch previewed. */
  ref: string;
  report: PreviewReport;
  /** The Secret's values before and after, which nothing may show. */
  secretValues: string[];
  /** The live objects and status records the preview must not touch, as one string. */
  liveState(): Promise<string>;
  stop(): Promise<void>;
}

/** startPreviewScenario pushes main and a feature branch and previews the branch; it checks that the preview wrote nothing. */
export async function startPreviewScenario(kubeconfig: string, redisUrl: string, ref = 'feature'): Promise<PreviewScenario> {
  const namespace = `preview-${randomUUID().slice(0, 8)}`;
  const configMap = (name: string, data: Record<string, string>) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n${Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`).join('\n')}\n`;
  const secret = (password: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ${namespace}\nstringData:\n  password: ${password}\n`;
  const harness = await startPipelineHarness(kubeconfig, redisUrl);
  const liveState = async () => {
    const names = ['keep', 'change', 'gone'];
    const live = await Promise.all(names.map((name) => getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name })));
    const records = await Promise.all(['keep', 'change', 'gone', 'db'].map((name) => harness.statusStore.get(harness.cluster, `core/${name === 'db' ? 'Secret' : 'ConfigMap'}/${namespace}/${name}`)));
    return JSON.stringify({ versions: live.map((object) => object?.metadata.resourceVersion), records });
  };
  let head: GitSource | undefined;
  const cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-preview-'));
  const stop = async () => {
    await head?.close();
    await harness.stop();
    await rm(cacheDir, { recursive: true, force: true });
  };
  try {
    await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
    await harness.repo.write('keep.yaml', configMap('keep', { a: '1' }));
    await harness.repo.write('change.yaml', configMap('change', { color: 'blue' }));
    await harness.repo.write('gone.yaml', configMap('gone', { b: '2' }));
    await harness.repo.write('secret.yaml', secret('old-secret-value'));
    const { poll } = await harness.pushAndReconcile('base');
    // Someone changes a field Tidemark owns, with another field manager.
    await applyObject(harness.connection.asManager('kubectl-edit'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'change', namespace }, data: { color: 'red' } });

    await harness.repo.git('checkout', '--quiet', '-b', ref);
    await harness.repo.write('change.yaml', configMap('change', { color: 'green', size: 'L' }));
    await harness.repo.delete('gone.yaml');
    await harness.repo.write('new.yaml', configMap('new', { c: '3' }));
    await harness.repo.write('bad.yaml', `apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\n  namespace: ${namespace}\nspec:\n  ports:\n  - port: 70000\n`);
    await harness.repo.write('role.yaml', `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\n  namespace: ${namespace}\nrules:\n- apiGroups: [""]\n  resources: [configmaps]\n  verbs: [get]\n`);
    await harness.repo.write('secret.yaml', secret('new-secret-value'));
    await harness.repo.commit(ref);
    await harness.repo.push({ branch: ref });

    head = new GitSource({ spec: parseSourceSpec({ name: 'test', url: harness.source.spec.url, ref: { branch: ref }, intervalMs: 1000 }, 'preview'), cacheDir });
    await head.open();
    const revision = (await head.poll()).revision;
    const before = await liveState();
    const report = await previewRevision(
      { source: 'test', ref, baseRevision: poll.revision, revision, requestedAt: new Date().toISOString() },
      { base: harness.source, head, clusters: [{ name: harness.cluster, labels: {} }], render: { connectionFor: () => harness.connection, kinds: harness.kinds, statusStore: harness.statusStore } },
    );
    if ((await liveState()) !== before) throw new Error('the preview changed a live object or a status record');
    const secretValues = ['old-secret-value', 'new-secret-value'].flatMap((value) => [value, Buffer.from(value).toString('base64')]);
    return { harness, namespace, ref, report, secretValues, liveState, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
