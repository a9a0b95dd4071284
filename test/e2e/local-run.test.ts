// The run command as a user runs it: `scripts/tidemark-local --kubeconfig PATH` on an existing
// cluster (a control plane this suite starts, standing in for kind or a real cluster). It builds and
// starts no control plane, reconciles the sample repository, goes live on a push through the local
// Git server's post-receive hook, and stops within seconds when the whole process group gets Ctrl-C,
// as a terminal sends it. A second part pins the push hook with a poll too slow to hide it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { freePort, run, startControlPlane, WorkingCopy, type ControlPlane } from '@tidemark/testing';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startLocalServices, type LocalServices } from '../../scripts/local-stack';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const sampleDir = join(repoRoot, 'examples/sample-repo');
const namespace = 'tidemark-demo';

let plane: ControlPlane;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tidemark-local-run-'));
  plane = await startControlPlane({ name: 'existing' });
  connection = ClusterConnection.connect({ cluster: 'existing', kubeconfig: plane.kubeconfig });
});
afterAll(async () => {
  connection?.close();
  await plane?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

let connection: ClusterConnection;
// Read through the API in this process (not a kubectl per poll), so the times measured are the push's.
const settingsOf = async (): Promise<string | undefined> =>
  ((await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: Record<string, string> } | undefined)?.data?.['log-level'];
const settingsYaml = (level: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  log-level: ${level}\n`;

/** pushedLive pushes a new log level and returns how long the ConfigMap took to show it, and git's output. */
async function pushedLive(copy: WorkingCopy, level: string): Promise<{ ms: number; output: string }> {
  await copy.write('plain/settings.yaml', settingsYaml(level));
  await copy.git('add', '-A');
  await copy.git('commit', '--quiet', '-m', `log level ${level}`);
  const started = performance.now();
  const output = await gitPush(copy);
  await expect.poll(settingsOf, { timeout: 20_000, interval: 20 }).toBe(level);
  return { ms: performance.now() - started, output };
}

describe('scripts/tidemark-local --kubeconfig PATH', () => {
  let child: ChildProcess;
  let stderr = '';
  /** The reconciler's log (JSON lines). */
  let stdout = '';
  let bannerMs = 0;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  beforeAll(async () => {
    const started = performance.now();
    // detached: a process group of its own, as a terminal gives a job, so the test can signal the group.
    child = spawn(join(repoRoot, 'scripts/tidemark-local'), ['--kubeconfig', plane.kubeconfigPath], {
      cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TIDEMARK_KUBECONFIG: '', TIDEMARK_LOCAL_DIR: join(scratch, 'run'), TIDEMARK_DASHBOARD_PORT: String(await freePort()), TIDEMARK_LOG_LEVEL: 'warn' },
    });
    exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    await waitUntil(() => stderr.includes('Press Ctrl-C to stop.') || child.exitCode !== null, 240_000);
    if (!stderr.includes('Press Ctrl-C to stop.')) throw new Error(`scripts/tidemark-local printed no banner:\n${stderr.slice(-3000)}`);
    bannerMs = performance.now() - started;
    process.stderr.write(`local-run: banner after ${(bannerMs / 1000).toFixed(1)} s\n`);
  }, 300_000);
  afterAll(() => {
    // Only if a test failed before the Ctrl-C one: end the whole group.
    if (child?.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });

  it('runs on the given cluster without building or starting a control plane', async () => {
    expect(stderr).toContain(`kubeconfig:               ${plane.kubeconfigPath}`);
    expect(stderr).toContain('into your cluster');
    expect(stderr).toMatch(/checking the Go programs: renderers\n/);
    const group = await processGroup(child.pid!);
    expect(group.some((command) => command.includes('redis-server'))).toBe(true);
    expect(group.filter((command) => /kube-testenv|kube-controllers/.test(command))).toEqual([]);
  });

  it('reconciles the sample repository, the WebApp in its storage version', async () => {
    await expect.poll(settingsOf, { timeout: 60_000 }).toBe('info');
    await expect.poll(() => plane.kubectl(['get', 'deployment', 'shop', '-n', namespace, '-o', 'name', '--ignore-not-found']), { timeout: 30_000 }).toBe('deployment.apps/shop\n');
    const managed = parse(await plane.kubectl(['get', 'webapp.tidemark.dev', 'shop', '-n', namespace, '-o', 'yaml', '--show-managed-fields'])) as { metadata: { managedFields: { manager: string; apiVersion: string }[] } };
    const versions = new Set(managed.metadata.managedFields.filter((entry) => entry.manager === 'tidemark').map((entry) => entry.apiVersion));
    expect([...versions]).toEqual(['tidemark.dev/v1beta1']);
  });

  it('goes live on a push to the local Git server: the post-receive hook announces it', async () => {
    const remote = /git clone (\S+)/.exec(stderr)?.[1];
    expect(remote).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sample\.git$/);
    const copy = await WorkingCopy.clone(remote!);
    try {
      for (const level of ['debug', 'warn']) {
        const { ms, output } = await pushedLive(copy, level);
        process.stderr.write(`local-run: push of ${level} live after ${ms.toFixed(0)} ms\n`);
        expect(output).toContain('tidemark: announced refs/heads/main to the reconciler (HTTP 202)');
      }
    } finally {
      await copy.remove();
    }
  });

  it('stops everything within 10 s when the whole process group gets SIGINT, as from a terminal, Redis first', async () => {
    const group = await processGroupMembers(child.pid!);
    expect(group.length).toBeGreaterThan(2);
    // The worst order: redis-server has ended on the Ctrl-C before the reconciler begins to stop.
    const redisServer = group.find((member) => member.command.startsWith('redis-server'));
    expect(redisServer).toBeDefined();
    process.kill(redisServer!.pid, 'SIGINT');
    await waitUntil(async () => !(await processGroup(child.pid!)).some((command) => command.startsWith('redis-server')), 5_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = performance.now();
    process.kill(-child.pid!, 'SIGINT');
    const outcome = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000))]);
    const ms = performance.now() - started;
    process.stderr.write(`local-run: stopped ${(ms / 1000).toFixed(1)} s after SIGINT\n`);
    expect(outcome).not.toBe('hung');
    expect(stderr).toContain('tidemark: stopping…');
    // Stopped by its own stop sequence: no step overran its bound, and the 8 s safety net did not fire.
    expect(stdout).not.toContain('going on without waiting');
    expect(stderr).not.toContain('not stopped within');
    await expect.poll(() => processGroup(child.pid!), { timeout: 3_000 }).toEqual([]);
  }, 30_000);
});

describe('the local Git server', () => {
  let services: LocalServices;

  beforeAll(async () => {
    // A poll too slow to matter: what goes live comes through the hook.
    services = await startLocalServices({ workDir: join(scratch, 'services'), sampleDir, log: createLogger('warn'), intervalMs: 600_000, kubeconfigPath: plane.kubeconfigPath });
    await waitUntil(async () => (await settingsOf()) !== undefined, 60_000);
  }, 120_000);
  afterAll(async () => {
    await services?.stop();
  });

  // pushedLive waits at most 20 s and the poll comes every 10 minutes, so going live at all is the
  // hook's doing; how fast it goes live is bench/e2e's to measure, not a test's.
  it('announces a push to the reconciler, signed with the webhook secret, so it goes live without a poll', async () => {
    const { ms, output } = await pushedLive(services.repo, 'error');
    process.stderr.write(`local-run: push live after ${ms.toFixed(0)} ms with a 10-minute poll\n`);
    expect(output).toContain('(HTTP 202)');
  });

  it('a hook with the wrong secret is refused, and the push still stands', async () => {
    const secretFile = join(services.git.root, 'sample.git', 'tidemark-webhook-secret');
    const secret = await readFile(secretFile, 'utf8');
    await writeFile(secretFile, 'not-the-secret\n');
    try {
      await services.repo.write('plain/settings.yaml', settingsYaml('trace'));
      await services.repo.git('add', '-A');
      await services.repo.git('commit', '--quiet', '-m', 'unsigned');
      const output = await gitPush(services.repo);
      expect(output).toContain('(HTTP 401)');
      expect(await settingsOf()).toBe('error');
    } finally {
      await writeFile(secretFile, secret);
    }
  });
});

describe('examples/sample-repo', () => {
  it('writes each Tidemark kind in the version its CRD stores', async () => {
    const storage = new Map<string, string>();
    for (const file of await readdir(join(repoRoot, 'deploy/crds'))) {
      const crd = parse(await readFile(join(repoRoot, 'deploy/crds', file), 'utf8')) as { kind?: string; spec?: { group: string; names: { kind: string }; versions: { name: string; storage: boolean }[] } };
      if (crd.kind !== 'CustomResourceDefinition' || !crd.spec) continue;
      storage.set(`${crd.spec.group}/${crd.spec.names.kind}`, `${crd.spec.group}/${crd.spec.versions.find((version) => version.storage)!.name}`);
    }
    const written: string[] = [];
    for (const file of (await readdir(sampleDir, { recursive: true })).filter((name) => name.endsWith('.yaml'))) {
      for (const document of parseAllDocuments(await readFile(join(sampleDir, file), 'utf8'))) {
        const object = document.toJS() as { apiVersion?: string; kind?: string } | null;
        const group = object?.apiVersion?.split('/')[0];
        const stored = storage.get(`${group}/${object?.kind}`);
        if (!stored) continue;
        written.push(`${file}: ${object!.kind}`);
        expect(object!.apiVersion, `${file}: ${object!.kind}`).toBe(stored);
      }
    }
    expect(written).toContain('webapp/shop.yaml: WebApp');
  });
});

/** waitUntil polls a condition every 100 ms (hooks cannot use expect.poll); it throws when the time is up. */
async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** gitPush pushes the working copy's branch to main and returns git's output, where the hook's lines show. */
function gitPush(copy: WorkingCopy): Promise<string> {
  return run('sh', ['-c', 'exec git push origin HEAD:main 2>&1'], { cwd: copy.dir });
}

/** processGroup lists the command lines of the live processes in a process group. */
async function processGroup(pgid: number): Promise<string[]> {
  return (await processGroupMembers(pgid)).map((member) => member.command);
}

/** processGroupMembers lists the live processes in a process group: pid and command line. */
async function processGroupMembers(pgid: number): Promise<{ pid: number; command: string }[]> {
  const members: { pid: number; command: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command's closing parenthesis: state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
    members.push({ pid: Number(entry), command: (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim() });
  }
  return members;
}
