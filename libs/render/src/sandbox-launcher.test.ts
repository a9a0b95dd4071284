import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canHideCredentials, canIsolateNetwork, defaultSandboxLimits, runSandboxed, sandboxLauncher, type SandboxRun } from './sandbox';
import type { SandboxLauncher } from './sandbox-launcher';

let home: string;
let launcher: SandboxLauncher;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tidemark-launcher-'));
  launcher = sandboxLauncher(1);
  // Nothing starts before the first run, which starts cold.
  expect(launcher.waitingPids()).toHaveLength(0);
  await runSandboxed({ ...runOf('/bin/true', []), launcher });
});

afterAll(async () => {
  launcher.close();
  await rm(home, { recursive: true, force: true });
});

function runOf(command: string, args: string[], extra: Partial<SandboxRun> = {}): SandboxRun {
  return { command, args, cwd: home, home, limits: defaultSandboxLimits, label: `test ${command}`, env: { TIDEMARK_UNIT: 'apps/web' }, ...extra };
}

/** warm waits until the launcher has a sandbox started ahead, then runs through it. */
async function warm(run: SandboxRun): Promise<string> {
  for (let tries = 0; tries < 200 && launcher.waitingPids().length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(launcher.waitingPids()).toHaveLength(1);
  const output = runSandboxed({ ...run, launcher });
  expect(launcher.waitingPids()).toHaveLength(0);
  return (await output).stdout;
}

const cold = async (run: SandboxRun): Promise<string> => (await runSandboxed(run)).stdout;

describe('sandboxes started ahead', () => {
  it('give a run the same environment and folder as a sandbox started for it', async () => {
    const environment = (text: string) => text.split('\0').filter(Boolean).sort();
    expect(environment(await warm(runOf('/usr/bin/env', ['-0'])))).toEqual(environment(await cold(runOf('/usr/bin/env', ['-0']))));
    expect(environment(await warm(runOf('/usr/bin/env', ['-0'])))).toContain('TIDEMARK_UNIT=apps/web');
    expect(await warm(runOf('/bin/pwd', []))).toBe(`${home}\n`);
  });

  it('pass hostile arguments and values through verbatim, never as shell', async () => {
    const args = ['$(touch pwned)', '"; exit 0; "', "it's", '\\n\\', ' leading', 'trailing ', '', '*', '-n'];
    const printed = await warm(runOf('/usr/bin/printf', ['[%s]', ...args], { env: { VALUE: '$(id) `id` ${HOME}' } }));
    expect(printed).toBe(args.map((arg) => `[${arg}]`).join(''));
    expect(await warm(runOf('/usr/bin/printenv', ['VALUE'], { env: { VALUE: '$(id) `id` ${HOME}' } }))).toBe('$(id) `id` ${HOME}\n');
    expect(await cold(runOf('/bin/ls', ['-A']))).toBe('');
  });

  it('start a run whose values hold a newline cold, with the same result', async () => {
    for (let tries = 0; tries < 200 && launcher.waitingPids().length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const output = runSandboxed({ ...runOf('/usr/bin/printf', ['[%s]', 'two\nlines']), launcher });
    expect(launcher.waitingPids()).toHaveLength(1);
    expect((await output).stdout).toBe('[two\nlines]');
  });

  it.runIf(canIsolateNetwork())('give every run user and network namespaces of its own', async () => {
    // Both runs are alive at once: a namespace's number is reused once it is gone.
    const namespaces = (start: (run: SandboxRun) => Promise<string>) => start(runOf('/bin/sh', ['-c', '/usr/bin/readlink /proc/self/ns/net /proc/self/ns/user; /bin/sleep 0.5']))
      .then((output) => output.trim().split('\n'));
    const [first, second] = await Promise.all([namespaces(warm), namespaces(cold)]);
    const ours = [readlinkSync('/proc/self/ns/net'), readlinkSync('/proc/self/ns/user')];
    expect(first).toHaveLength(2);
    for (const index of [0, 1]) {
      expect(first[index]).not.toBe(ours[index]);
      expect(second[index]).not.toBe(ours[index]);
      expect(second[index]).not.toBe(first[index]);
    }
  });

  it('keep the limits and the tool\'s message', async () => {
    const slow = warm(runOf('/bin/sleep', ['60'], { limits: { ...defaultSandboxLimits, timeoutMs: 300 } }));
    await expect(slow).rejects.toMatchObject({ code: 'RenderTimedOut' });
    await expect(warm(runOf('/bin/sh', ['-c', 'echo "line 3: broken" >&2; exit 4']))).rejects.toThrow('test /bin/sh failed: line 3: broken');
    await expect(runSandboxed({ ...runOf('/nonexistent/tool', []), launcher })).rejects.toMatchObject({ code: 'RenderToolMissing' });
  });

  it('start the next sandbox when a run has ended, not while it runs', async () => {
    const running = warm(runOf('/bin/sleep', ['0.3']));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(launcher.waitingPids()).toHaveLength(0);
    await running;
    for (let tries = 0; tries < 200 && launcher.waitingPids().length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(launcher.waitingPids()).toHaveLength(1);
  });

  it('stop the waiting sandboxes on close', async () => {
    const closing = sandboxLauncher(1);
    expect(closing.take({ command: '/bin/true', args: [], cwd: home, env: {} })).toBeUndefined();
    for (let tries = 0; tries < 200 && closing.waitingPids().length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const pids = closing.waitingPids();
    expect(pids).toHaveLength(1);
    closing.close();
    for (let tries = 0; tries < 200 && pids.some(alive); tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pids.filter(alive)).toEqual([]);
    expect(closing.take({ command: '/bin/true', args: [], cwd: home, env: {} })).toBeUndefined();
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the environment of a render', () => {
  it('never holds the reconciler\'s own: a secret in its environment reaches neither a warm nor a cold run', async () => {
    // Issue 34, item 17: the Redis password and the like stay with the reconciler.
    vi.stubEnv('TIDEMARK_REDIS_PASSWORD', 'canary-redis-password');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    try {
      const sandboxOwn = ['PATH', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy', 'HOME', 'TMPDIR', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'GOMEMLIMIT', 'TIDEMARK_UNIT'];
      // What a shell sets for itself (the warm sandbox waits in one).
      const shellOwn = ['PWD', 'SHLVL', '_', 'OLDPWD'];
      for (const output of [await warm(runOf('/usr/bin/env', ['-0'])), await cold(runOf('/usr/bin/env', ['-0']))]) {
        expect(output).not.toContain('canary-redis-password');
        const names = output.split('\0').filter(Boolean).map((entry) => entry.slice(0, entry.indexOf('=')));
        expect(names.filter((name) => !sandboxOwn.includes(name) && !shellOwn.includes(name))).toEqual([]);
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe.runIf(canHideCredentials())('credentials in a sandbox with namespaces', () => {
  it('are out of sight: a hidden folder is empty and cannot be unmounted, warm or cold', async () => {
    // Issue 34, item 17: a ServiceAccount token or kubeconfig mounted in the pod is not the render's.
    const secrets = join(home, 'secrets');
    await mkdir(secrets, { recursive: true });
    await writeFile(join(secrets, 'token'), 'canary-service-account-token');
    const hiding = sandboxLauncher(1, [secrets]);
    try {
      const peek = runOf('/bin/sh', ['-c', `/bin/ls -A ${secrets}; /bin/umount ${secrets} 2>/dev/null; /bin/cat ${secrets}/token 2>/dev/null; exit 0`], { hiddenPaths: [secrets] });
      await runSandboxed({ ...peek, launcher: hiding });
      for (let tries = 0; tries < 200 && hiding.waitingPids().length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const outputs = [(await runSandboxed({ ...peek, launcher: hiding })).stdout, (await runSandboxed(peek)).stdout];
      for (const output of outputs) expect(output).toBe('');
    } finally {
      hiding.close();
    }
  });

  it('do not include the reconciler\'s /proc: its environment and its threads\' are unreadable', async () => {
    // What /proc/<pid>/environ shows is the environment the process started with (process.env edits do not show).
    const threads = readdirSync(`/proc/${process.pid}/task`);
    const paths = [`/proc/${process.pid}/environ`, ...threads.map((tid) => `/proc/${tid}/environ`), `/proc/${process.pid}/cmdline`];
    const read = runOf('/bin/sh', ['-c', `for path in ${paths.join(' ')}; do /bin/cat "$path" 2>/dev/null; done; exit 0`]);
    for (const output of [await warm(read), await cold(read)]) expect(output).toBe('');
  });
});
