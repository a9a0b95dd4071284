// CRD push: the reconciler's memory through a push of kube-prometheus's setup CRDs (issue 42, item 4), the
// largest objects a platform team commonly keeps in Git: ten CustomResourceDefinitions, 4.4 MiB of YAML
// (bench/data/kube-prometheus-crds, vendored with their licence; SOURCE.md says where they came from).
// The reconciler runs as the image runs it (the bundle and the ENTRYPOINT's node flags, as bench/scale does)
// against one bare API server; the figures, each beside a baseline from the same run:
// - its peak RSS (VmHWM) from start through the push until every CRD is Established, against the same
//   process idle before the push (the goal is an absolute ≤ 300 MiB, printed beside it);
// - the time until every CRD is Established, against raw server-side apply of the same ten CRDs by a
//   minimal client to a second namespace-free copy (renamed group) on the same API server.
//   npx tsx bench/crd-push.bench.ts [--from-source] [--node-flags='...']
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { messageOf } from '@tidemark/contracts';
import { startControlPlane, startGitServer, startRedis, stopProcess } from '@tidemark/testing';
import { figure, printFigures, say } from './support/figures';
import { RawClient } from './support/raw-apply';
import { buildReconcilerBundle, freePort, imageNodeFlags, memorySplit, procStatus } from './support/reconciler-process';

const { values } = parseArgs({ options: { 'from-source': { type: 'boolean', default: false }, 'node-flags': { type: 'string' } } });
const dataDir = 'bench/data/kube-prometheus-crds';
const mib = (kib: number) => kib / 1024;

interface Crd { name: string; text: string; object: Record<string, unknown> }

/** readCrds reads the vendored CRDs: one document each, named by metadata.name. */
async function readCrds(): Promise<Crd[]> {
  const files = (await readdir(dataDir)).filter((file) => file.endsWith('.yaml')).sort();
  const crds: Crd[] = [];
  for (const file of files) {
    const text = await readFile(join(dataDir, file), 'utf8');
    for (const document of parseAllDocuments(text)) {
      const object = document.toJS() as Record<string, unknown> | null;
      if (object?.kind !== 'CustomResourceDefinition') continue;
      crds.push({ name: (object.metadata as { name: string }).name, text, object });
    }
  }
  if (crds.length !== 10) throw new Error(`${dataDir} holds ${crds.length} CRDs where kube-prometheus has 10`);
  return crds;
}

/** established counts the named CRDs the API server reports Established. */
async function established(client: RawClient, names: readonly string[]): Promise<number> {
  let count = 0;
  for (const name of names) {
    const { status, text } = await client.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    if (status !== 200) continue;
    const conditions = (JSON.parse(text) as { status?: { conditions?: Array<{ type: string; status: string }> } }).status?.conditions ?? [];
    if (conditions.some((condition) => condition.type === 'Established' && condition.status === 'True')) count += 1;
  }
  return count;
}

/** renamed is a CRD moved to another group, so the baseline's copy does not collide with the reconciler's. */
function renamed(crd: Crd): { name: string; body: string } {
  const object = structuredClone(crd.object) as { metadata: { name: string }; spec: { group: string; names: { plural: string } } };
  object.spec.group = 'raw.bench.tidemark.dev';
  object.metadata.name = `${object.spec.names.plural}.${object.spec.group}`;
  return { name: object.metadata.name, body: JSON.stringify(object) };
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

const crds = await readCrds();
const yamlBytes = crds.reduce((total, crd) => total + Buffer.byteLength(crd.text), 0);
say(`starting an API server, Redis and a Git server; ${crds.length} CRDs, ${(yamlBytes / 2 ** 20).toFixed(1)} MiB of YAML`);
const plane = await startControlPlane({ name: 'bench-crd-push' });
const redis = await startRedis();
const git = await startGitServer();
const workDir = await mkdtemp(join(tmpdir(), 'tidemark-bench-crd-push-'));
const client = await RawClient.connect(plane.kubeconfig, 4);
const url = await git.createRepository('crds');
const repo = await git.workingCopy('crds');
await repo.write('README.md', 'kube-prometheus setup CRDs, pushed by the bench\n');
await repo.commitAndPush('empty');
const configPath = join(workDir, 'tidemark.yaml');
const httpPort = await freePort();
await writeFile(configPath, stringify({
  redis: { url: redis.url, prefix: 'crdpush' }, cacheDir: join(workDir, 'cache'), http: { port: httpPort, host: '127.0.0.1' },
  sources: [{ name: 'crds', url, ref: { branch: 'main' }, intervalMs: 1_000, jitter: 0 }],
  clusters: [{ name: 'bench', kubeconfig: plane.kubeconfigPath }],
}));
const bundleDir = `test-artifacts/bench-crd-push-${process.pid}`;
const entry = values['from-source'] ? ['--import', 'tsx', 'apps/reconciler/src/main.ts'] : [await buildReconcilerBundle(bundleDir)];
const nodeFlags = values['node-flags'] === undefined ? await imageNodeFlags() : values['node-flags'].split(/\s+/).filter(Boolean);
const child = spawn(process.execPath, [...nodeFlags, ...entry], {
  env: { ...process.env, TIDEMARK_CONFIG: configPath, TIDEMARK_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'],
});
let stderrTail = '';
child.stderr.on('data', (chunk: Buffer) => { stderrTail = (stderrTail + chunk.toString()).slice(-4_000); });
const pid = child.pid!;

try {
  await waitFor('the reconciler\'s /metrics', async () => fetch(`http://127.0.0.1:${httpPort}/metrics`).then((response) => response.ok, () => false), 120_000, 500);
  await new Promise((resolve) => setTimeout(resolve, 10_000)); // idle, so start-up allocations settle
  const idle = await procStatus(pid);
  say(`reconciler idle (${values['from-source'] ? 'from source, tsx' : 'bundle'}): RSS ${mib(idle.rss).toFixed(0)} MiB, peak so far ${mib(idle.peak).toFixed(0)} MiB; pushing the CRDs`);
  for (const file of (await readdir(dataDir)).filter((name) => name.endsWith('.yaml'))) await repo.write(`crds/${file}`, await readFile(join(dataDir, file), 'utf8'));
  const names = crds.map((crd) => crd.name);
  const pushed = performance.now();
  await repo.commitAndPush('kube-prometheus setup CRDs');
  let rssSeen = idle.rss;
  await waitFor(`${names.length} CRDs Established`, async () => {
    rssSeen = Math.max(rssSeen, (await procStatus(pid)).rss);
    return (await established(client, names)) === names.length;
  }, 600_000);
  const pushMs = performance.now() - pushed;
  // Settle a few seconds: status writes and the watch of the new kinds come after Established.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const after = await procStatus(pid);
  const split = await memorySplit(httpPort);
  const peak = Math.max(after.peak, rssSeen);
  say(`all Established after ${Math.round(pushMs)} ms; peak RSS ${mib(peak).toFixed(0)} MiB (VmHWM), now ${mib(after.rss).toFixed(0)} MiB (${Object.entries(split).map(([key, value]) => `${key} ${value}`).join(', ')})`);

  say('baseline: raw server-side apply of the same CRDs (renamed group) by a minimal client');
  const raw = crds.map(renamed);
  const rawStarted = performance.now();
  for (const { name, body } of raw) {
    const status = await client.send('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}?fieldManager=raw&force=true`, body, 'application/apply-patch+yaml');
    if (status >= 300) throw new Error(`raw apply of ${name} answered ${status}`);
  }
  await waitFor('the raw CRDs Established', async () => (await established(client, raw.map(({ name }) => name))) === raw.length, 600_000);
  const rawMs = performance.now() - rawStarted;

  printFigures('crd-push', [
    figure(`reconciler peak RSS through a push of kube-prometheus's ${crds.length} CRDs (goal ≤ 300 MiB)`, 'MiB', mib(peak), 'the same process idle before the push', mib(idle.rss)),
    figure(`push of kube-prometheus's ${crds.length} CRDs until all Established`, 'ms', pushMs, 'raw SSA of the same CRDs until Established', rawMs),
  ], { yamlMiB: Math.round((yamlBytes / 2 ** 20) * 100) / 100, reconcilerRun: values['from-source'] ? 'tsx' : 'bundle', nodeFlags, memoryMiB: split, goalMetMiB300: mib(peak) <= 300 });
} catch (error) {
  say(`failed: ${messageOf(error)}; reconciler stderr: ${stderrTail}`);
  process.exitCode = 1;
} finally {
  await stopProcess(child);
  client.close();
  await git.stop();
  await redis.stop();
  await plane.stop();
  await rm(workDir, { recursive: true, force: true });
  await rm(bundleDir, { recursive: true, force: true });
}
