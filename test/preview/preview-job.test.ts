// The preview job end to end: a preview asked for through the BullMQ preview queue is run by a
// preview worker (runPreviewJob, the reconciler's wiring), on a real kube-apiserver started with an
// audit log, a real Git server with a pushed branch, and Redis. The report lands in Redis without
// Secret data, and the API server's own audit log shows that the preview wrote nothing: every
// request that could change something was a dry-run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { readPreviewReport, type PreviewReport } from '@tidemark/contracts';
import { openGitPreviewHead, runPreviewJob } from '@tidemark/preview';
import { PreviewQueue, PreviewWorkers } from '@tidemark/queue';
import { kubeUserAgent } from '@tidemark/cluster';
import { markAuditLog, readAuditLog, startControlPlane, type AuditedRequest, type ControlPlane } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { operatorToken, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';
import { runTidemark } from '../cli/run-tidemark';

let plane: ControlPlane;
let harness: PipelineHarness;
let redis: Redis;
let queue: PreviewQueue;
let workers: PreviewWorkers;
let cacheRoot: string;
let requests: AuditedRequest[];
let report: PreviewReport;
let dashboard: DashboardFixture;
let server: string;
const namespace = `preview-job-${randomUUID().slice(0, 8)}`;
const queuePrefix = `preview-${randomUUID().slice(0, 8)}`;
const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  value: "${value}"\n`;
const secretValue = 'hunter2-preview-secret';

/** waitForReport waits until the stored report is finished (the worker's last write). */
async function waitForReport(ref: string): Promise<PreviewReport> {
  for (;;) {
    const found = await readPreviewReport(redis, harness.statusStore.keys, 'test', ref);
    if (found && (found.state === 'done' || found.state === 'failed')) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  plane = await startControlPlane({ name: 'preview-audit', auditLog: true });
  harness = await startPipelineHarness(plane.kubeconfig, inject('redisUrl'));
  redis = new Redis(inject('redisUrl'));
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('change.yaml', configMap('change', 'old'));
  await harness.repo.write('gone.yaml', configMap('gone', 'x'));
  const { poll } = await harness.pushAndReconcile('base');
  // The poller records the revision the source delivered: that is what a preview compares with.
  await redis.hset(harness.statusStore.keys.sourceStatus('test'), 'revision', poll.revision);

  await harness.repo.git('checkout', '--quiet', '-b', 'feature/login');
  await harness.repo.write('change.yaml', configMap('change', 'new'));
  await harness.repo.delete('gone.yaml');
  await harness.repo.write('new.yaml', configMap('new', 'y'));
  await harness.repo.write('secret.yaml', `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ${namespace}\nstringData:\n  password: ${secretValue}\n`);
  // A pull request is previewed at the head commit its webhook names.
  const featureHead = (await harness.repo.commit('feature')).trim();
  await harness.repo.push({ branch: 'feature/login' });

  cacheRoot = await mkdtemp(join(tmpdir(), 'tidemark-preview-job-'));
  queue = new PreviewQueue({ connection: inject('redisUrl'), prefix: queuePrefix });
  workers = new PreviewWorkers({ connection: inject('redisUrl'), prefix: queuePrefix });
  await queue.start();
  await workers.start(async (job) => {
    await runPreviewJob(job, {
      redis, keys: harness.statusStore.keys, clusters: [{ name: harness.cluster, labels: {} }],
      sourceFor: (name) => (name === 'test' ? { base: harness.source, openHead: (ref) => openGitPreviewHead(harness.source, ref, cacheRoot) } : undefined),
      render: { connectionFor: () => harness.connection, kinds: harness.kinds, statusStore: harness.statusStore },
    });
  });

  const mark = await markAuditLog(plane.auditLogPath!);
  const queued = await queue.enqueue({ source: 'test', ref: 'feature/login', revision: featureHead, trigger: 'webhook', pullRequest: { number: 7, url: 'https://git.example/shop/pulls/7', title: 'Login' }, requestedAt: new Date().toISOString() });
  expect(queued.status).toBe('queued');
  report = await waitForReport('feature/login');
  // Tidemark's requests (its User-Agent): the API server's own upkeep (leases) writes meanwhile.
  requests = await readAuditLog(plane.auditLogPath!, mark, kubeUserAgent);
});

afterAll(async () => {
  await dashboard?.stop();
  await workers?.close();
  await queue?.close();
  redis?.disconnect();
  await harness?.stop();
  await plane?.stop();
  if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
});

describe('a preview job', () => {
  it('stores the report for the ref: created, changed and deleted objects, for its pull request', () => {
    expect(report.state).toBe('done');
    expect(report).toMatchObject({ source: 'test', ref: 'feature/login', trigger: 'webhook', pullRequest: { number: 7, title: 'Login' } });
    const action = (kind: string, name: string) => report.changes.find((change) => change.kind === kind && change.name === name)?.action;
    expect(action('ConfigMap', 'change')).toBe('configured');
    expect(action('ConfigMap', 'new')).toBe('created');
    expect(action('ConfigMap', 'gone')).toBe('deleted');
    expect(action('Secret', 'db')).toBe('created');
  });

  it('keeps Secret data out of Redis', async () => {
    const stored = await redis.get(harness.statusStore.keys.preview('test', 'feature/login'));
    expect(stored).toContain('"kind":"Secret"');
    expect(stored).not.toContain(secretValue);
    expect(stored).not.toContain(Buffer.from(secretValue).toString('base64'));
  });

  it('wrote nothing to the cluster: the audit log holds reads and dry-runs only', () => {
    expect(requests.some((request) => request.requestURI.includes('dryRun=All'))).toBe(true);
    const writes = requests.filter((request) => !['get', 'list', 'watch'].includes(request.verb) && !request.requestURI.includes('dryRun=All'));
    expect(writes).toEqual([]);
  });

  it('skips what Tidemark reads but never applies: beside a new ConfigMap, a HealthRule and a Placement get no row and no request', async () => {
    const ref = 'feature/rules';
    await harness.repo.git('checkout', '--quiet', '-b', ref, 'main');
    await harness.repo.write('rules/health.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: HealthRule\nmetadata:\n  name: certificates\n  namespace: ${namespace}\nspec:\n  apiVersion: cert-manager.io/v1\n  kind: Certificate\n  current: "has(status.conditions) && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"\n`);
    await harness.repo.write('rules/placement.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: Placement\nmetadata:\n  name: elsewhere\n  namespace: ${namespace}\nspec:\n  rules:\n    - paths: ['elsewhere/']\n      clusterSelector: { matchLabels: { env: nowhere } }\n`);
    await harness.repo.write('beside.yaml', configMap('beside', 'z'));
    await harness.repo.commit('rules');
    await harness.repo.push({ branch: ref });
    await harness.repo.git('checkout', '--quiet', 'feature/login');
    const mark = await markAuditLog(plane.auditLogPath!);
    await queue.enqueue({ source: 'test', ref, trigger: 'request', requestedAt: new Date().toISOString() });
    const rules = await waitForReport(ref);
    expect(rules.state).toBe('done');
    expect(rules.unreachable).toBeUndefined();
    expect(rules.changes.map(({ action, kind, name }) => ({ action, kind, name }))).toEqual([{ action: 'created', kind: 'ConfigMap', name: 'beside' }]);
    // Neither a dry-run nor the discovery before one: nothing of the tidemark.dev group was asked for.
    const asked = await readAuditLog(plane.auditLogPath!, mark, kubeUserAgent);
    expect(asked.some((request) => request.requestURI.includes('dryRun=All') && request.resource === 'configmaps')).toBe(true);
    expect(asked.filter((request) => request.requestURI.includes('tidemark.dev') || /healthrules|placements/.test(request.resource))).toEqual([]);
  });

  it('says why when the ref does not exist', async () => {
    await queue.enqueue({ source: 'test', ref: 'no-such-branch', trigger: 'request', requestedAt: new Date().toISOString() });
    const failed = await waitForReport('no-such-branch');
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/no-such-branch/);
  });

  it('refuses a job that carries more than names', async () => {
    await expect(queue.enqueue({ source: 'test', ref: 'x', trigger: 'request', requestedAt: new Date().toISOString(), object: { kind: 'Secret' } } as never)).rejects.toThrow(/preview job carries only/);
    await expect(queue.enqueue({ source: 'test', ref: 'bad ref', trigger: 'request', requestedAt: new Date().toISOString() })).rejects.toThrow(/ref/);
  });
});

describe('tidemark preview (the real binary, through the dashboard and the preview queue)', () => {
  beforeAll(async () => {
    dashboard = await startDashboardFixture(inject('redisUrl'), { store: harness.statusStore, clusters: [harness.cluster], previews: queue });
    server = await dashboard.app.listen({ host: '127.0.0.1', port: 0 });
  });
  const asOperator = () => ({ TIDEMARK_SERVER: server, TIDEMARK_TOKEN: operatorToken });

  it('asks for a preview, waits for it, prints what would change, and exits 3', async () => {
    const run = await runTidemark(['preview', 'feature/login', '--source', 'test'], asOperator());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/feature\/login \([0-9a-f]{12}\): 2 created, 1 changed, 1 deleted, 0 invalid on 1 cluster/);
    expect(run.stdout).toMatch(new RegExp(`^shared\\s+configured\\s+ConfigMap\\s+${namespace}\\s+change`, 'm'));
    expect(run.stdout).toMatch(/\/data\/value\s+old\s+new/);
    expect(run.stdout).not.toContain(secretValue);
  });

  it('prints the stable report with -o json, and the pull-request markdown with --markdown', async () => {
    const json = await runTidemark(['preview', 'feature/login', '--source', 'test', '-o', 'json'], asOperator());
    expect(json.code).toBe(3);
    const parsed = JSON.parse(json.stdout) as PreviewReport;
    expect(parsed).toMatchObject({ source: 'test', ref: 'feature/login', state: 'done', trigger: 'request' });
    const markdown = await runTidemark(['preview', 'feature/login', '--source', 'test', '--markdown'], asOperator());
    expect(markdown.stdout).toContain('### Tidemark preview of `feature/login`');
    expect(markdown.stdout).toContain(`${server}/previews/test/feature%2Flogin`);
  });

  it('exits 0 when the ref changes nothing, and 1 with the reason when it does not exist', async () => {
    const same = await runTidemark(['preview', 'main', '--source', 'test'], asOperator());
    expect(same.stdout).toContain('No changes.');
    expect(same.code).toBe(0);
    const missing = await runTidemark(['preview', 'nope', '--source', 'test'], asOperator());
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/The preview failed: .*nope/);
  });

  it('needs an operator token to ask, and refuses a ref Git would not accept', async () => {
    const viewer = await runTidemark(['preview', 'feature/login', '--source', 'test'], { TIDEMARK_SERVER: server, TIDEMARK_TOKEN: viewerToken });
    expect(viewer.code).toBe(1);
    expect(viewer.stderr).toMatch(/operator/);
    const bad = await runTidemark(['preview', 'a..b c', '--source', 'test'], asOperator());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/ref/);
  });
});
