// `tidemark diff`, the real binary, against the rig's kube-apiserver with its kubeconfig: a working
// tree with uncommitted edits and a new untracked file, compared with what Tidemark applied. The
// command writes nothing: not to the cluster, not to the user's repository.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getObject } from '@tidemark/cluster';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { runTidemark } from './run-tidemark';

let harness: PipelineHarness;
const namespace = `diff-${randomUUID().slice(0, 8)}`;
const secretValue = 'diff-secret-value-42';
const configMap = (name: string, color: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  color: ${color}\n`;
const secret = (password: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ${namespace}\nstringData:\n  password: ${password}\n`;
const live = async () => JSON.stringify(await Promise.all(['settings', 'new'].map(async (name) => (await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name }))?.metadata.resourceVersion ?? 'absent')));
// The source's name is part of each object's owner annotation: the harness's source is `test`.
const diff = (...args: string[]) => runTidemark(['diff', harness.repo.dir, '--source', 'test', '--kubeconfig', inject('kubeconfigPath'), ...args]);

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('settings.yaml', configMap('settings', 'blue'));
  await harness.repo.write('secret.yaml', secret('first-value'));
  await harness.pushAndReconcile('base');
});
afterAll(async () => {
  await harness?.stop();
});

describe('tidemark diff', () => {
  it('exits 0 when a ref matches what is live, and shows a source named otherwise taking ownership', async () => {
    const run = await diff('--ref', 'HEAD');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('No changes.');
    expect(run.code).toBe(0);
    const other = await runTidemark(['diff', harness.repo.dir, '--ref', 'HEAD', '--source', 'other', '--kubeconfig', inject('kubeconfigPath')]);
    expect(other.code).toBe(3);
    expect(other.stdout).toMatch(/\/metadata\/annotations\/tidemark.dev~1owner\s+test:core\/ConfigMap/);
  });

  it('shows the working tree\'s edits and new files field by field, Secrets as changed only, and exits 3', async () => {
    await harness.repo.write('settings.yaml', configMap('settings', 'green'));
    await harness.repo.write('new.yaml', configMap('new', 'red'));
    await harness.repo.write('secret.yaml', secret(secretValue));
    const status = await harness.repo.git('status', '--porcelain');
    const before = await live();
    const run = await diff();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(new RegExp(`^\\S+\\s+configured\\s+ConfigMap\\s+${namespace}\\s+settings`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^\\S+\\s+created\\s+ConfigMap\\s+${namespace}\\s+new`, 'm'));
    expect(run.stdout).toMatch(/\/data\/color\s+blue\s+green/);
    expect(run.stdout).toMatch(new RegExp(`^\\S+\\s+configured\\s+Secret\\s+${namespace}\\s+db`, 'm'));
    expect(run.stdout).not.toContain(secretValue);
    expect(run.stdout).not.toContain(Buffer.from(secretValue).toString('base64'));
    // Nothing written: the cluster's objects and the repository's index are as they were.
    expect(await live()).toBe(before);
    expect(await harness.repo.git('status', '--porcelain')).toBe(status);
  });

  it('prints the stable report with -o json', async () => {
    const run = await runTidemark(['-o', 'json', 'diff', harness.repo.dir, '--source', 'test', '--kubeconfig', inject('kubeconfigPath')]);
    const report = JSON.parse(run.stdout) as { state: string; changes: Array<{ name: string; action: string }> };
    expect(report.state).toBe('done');
    expect(report.changes.find((change) => change.name === 'new')?.action).toBe('created');
  });

  it('lists no row for what Tidemark reads but never applies: a HealthRule and a Placement beside a new ConfigMap', async () => {
    await harness.repo.write('rules/beside.yaml', configMap('beside', 'white'));
    await harness.repo.write('rules/health.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: HealthRule\nmetadata:\n  name: certificates\n  namespace: ${namespace}\nspec:\n  apiVersion: cert-manager.io/v1\n  kind: Certificate\n  current: "has(status.conditions) && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"\n`);
    await harness.repo.write('rules/placement.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: Placement\nmetadata:\n  name: elsewhere\n  namespace: ${namespace}\nspec:\n  rules:\n    - paths: ['elsewhere/']\n      clusterSelector: { matchLabels: { env: nowhere } }\n`);
    try {
      const run = await runTidemark(['-o', 'json', 'diff', harness.repo.dir, '--source', 'test', '--kubeconfig', inject('kubeconfigPath')]);
      const report = JSON.parse(run.stdout) as { state: string; unreachable?: unknown; changes: Array<{ kind: string; name: string; action: string }> };
      expect(report.state).toBe('done');
      expect(report.unreachable).toBeUndefined();
      expect(report.changes.find((change) => change.name === 'beside')).toMatchObject({ kind: 'ConfigMap', action: 'created' });
      expect(report.changes.filter((change) => ['HealthRule', 'Placement'].includes(change.kind))).toEqual([]);
    } finally {
      await harness.repo.delete('rules');
    }
  });

  it('lists the sync hooks the change would run, in their order, and dry-runs none of them as an object', async () => {
    const hook = (name: string, annotations: Record<string, string>) => JSON.stringify({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace, annotations },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name, image: 'registry.example/tool:1' }] } } },
    });
    await harness.repo.write('hooks/migrate.yaml', hook('migrate', { 'helm.sh/hook': 'pre-upgrade', 'helm.sh/hook-weight': '5' }));
    await harness.repo.write('hooks/schema.yaml', hook('schema', { 'tidemark.dev/hook': 'pre-apply', 'tidemark.dev/hook-weight': '-1' }));
    await harness.repo.write('hooks/smoke.yaml', hook('smoke', { 'tidemark.dev/hook': 'post-apply', 'tidemark.dev/hook-delete-policy': 'hook-succeeded' }));
    try {
      const text = await diff();
      expect(text.stderr).toBe('');
      const listed = text.stdout.slice(text.stdout.indexOf('Hooks that would run'));
      expect(listed).toMatch(new RegExp(`pre-apply\\s+-1\\s+Job\\s+${namespace}\\s+schema[^\\n]*\\n[^\\n]*pre-apply\\s+5\\s+Job\\s+${namespace}\\s+migrate[^\\n]*\\n[^\\n]*post-apply\\s+0\\s+Job\\s+${namespace}\\s+smoke\\s+hook-succeeded`));
      const json = await runTidemark(['-o', 'json', 'diff', harness.repo.dir, '--source', 'test', '--kubeconfig', inject('kubeconfigPath')]);
      const report = JSON.parse(json.stdout) as { changes: Array<{ kind: string }>; hooks?: Array<{ name: string; phase: string; weight: number }> };
      expect(report.hooks?.map((entry) => `${entry.phase}:${entry.weight}:${entry.name}`)).toEqual(['pre-apply:-1:schema', 'pre-apply:5:migrate', 'post-apply:0:smoke']);
      expect(report.changes.filter((change) => change.kind === 'Job')).toEqual([]);
    } finally {
      await harness.repo.delete('hooks');
    }
  });

  it('names what is wrong: a context the kubeconfig lacks, a folder outside Git, a ref that does not exist', async () => {
    const context = await diff('--context', 'nope');
    expect(context.code).toBe(2);
    expect(context.stderr).toMatch(/no context "nope"/);
    const folder = await runTidemark(['diff', '/', '--kubeconfig', inject('kubeconfigPath')]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/not inside a Git working tree/);
    const ref = await diff('--ref', 'no-such-ref');
    expect(ref.code).toBe(2);
    expect(ref.stderr).toMatch(/no-such-ref is not a branch, tag or commit/);
  });
});
