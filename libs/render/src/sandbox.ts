import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { RenderFailure } from './render-failure';
import { SandboxLauncher, type LaunchedSandbox } from './sandbox-launcher';

/** SandboxLimits bound one renderer run. */
export interface SandboxLimits {
  /** Wall-clock time before the run is killed. @defaultValue 60_000 */
  timeoutMs: number;
  /** Most bytes of standard output kept; more kills the run. @defaultValue 32 MiB */
  maxOutputBytes: number;
  /** Resident memory at which the run is killed (also the Go runtime's soft limit). @defaultValue 1 GiB */
  maxMemoryBytes: number;
}

export const defaultSandboxLimits: Readonly<SandboxLimits> = Object.freeze({
  timeoutMs: 60_000,
  maxOutputBytes: 32 * 1024 * 1024,
  maxMemoryBytes: 1024 * 1024 * 1024,
});

/** SandboxRun is one command to run in the sandbox. */
export interface SandboxRun {
  /** Absolute path of the binary. */
  command: string;
  args: readonly string[];
  /** Working folder, inside the unit's temporary tree. */
  cwd: string;
  /** The only environment the tool gets, besides the sandbox's own (HOME, TMPDIR, proxies). */
  env?: Readonly<Record<string, string>>;
  /** An empty folder that serves as HOME, TMPDIR and the tools' caches. */
  home: string;
  limits: SandboxLimits;
  /** What the message calls the run, e.g. "kustomize build overlays/staging". */
  label: string;
  /** Sandboxes started ahead (see sandboxLauncher); without one, or when it has none waiting, the run starts cold. */
  launcher?: SandboxLauncher;
}

/** SandboxOutput is what a successful run wrote: its standard output, and the start of its standard error (warnings). */
export interface SandboxOutput {
  stdout: string;
  /** At most `keptStderrBytes` of it; a tool that succeeds says little there. */
  stderr: string;
}

/** How much of a successful run's standard error is kept, for its warnings. */
export const keptStderrBytes = 16 * 1024;

const memoryPollMs = 50;
// A proxy that refuses every connection: tools that would reach the network fail at once.
const closedProxy = 'http://127.0.0.1:9';
// The unshare binary when `unshare --net` works here (it does not in most containers), else null.
let unshare: string | null | undefined;

/** canIsolateNetwork tells whether renderers run in a network namespace of their own. */
export function canIsolateNetwork(): boolean {
  if (unshare === undefined) {
    const found = ['/usr/bin/unshare', '/bin/unshare'].find((path) => existsSync(path));
    const probe = found ? spawnSync(found, ['--map-root-user', '--net', 'true'], { stdio: 'ignore', timeout: 5_000, env: {} }) : undefined;
    unshare = found && probe?.status === 0 ? found : null;
  }
  return unshare !== null;
}

/**
 * runSandboxed runs a renderer the way Argo CD's repo-server runs its tools: a clean
 * environment (no proxies, credentials or PATH of ours, an empty HOME), no network (a network
 * namespace where the kernel allows one, and a proxy that refuses every connection in any
 * case), and limits on time, output and resident memory. It resolves with standard output and
 * the start of standard error (a tool's warnings), and rejects with a RenderFailure naming the
 * run and the tool's own message.
 */
export function runSandboxed(run: SandboxRun): Promise<SandboxOutput> {
  // Asked first: behind unshare, a missing tool is only unshare's exit code.
  if (!existsSync(run.command)) return Promise.reject(toolMissing(run));
  return new Promise((resolve, reject) => {
    const child = startSandbox(run);
    const stdout: Buffer[] = [];
    let outputBytes = 0;
    let stderr = '';
    let stderrHead = '';
    let killedFor: RenderFailure | undefined;
    const kill = (failure: RenderFailure): void => {
      killedFor ??= failure;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(new RenderFailure('RenderTimedOut', `${run.label} took longer than ${run.limits.timeoutMs} ms and was stopped`)), run.limits.timeoutMs);
    const memory = setInterval(() => {
      void residentBytes(child.pid).then((bytes) => {
        if (bytes > run.limits.maxMemoryBytes) kill(new RenderFailure('RenderMemoryExceeded', `${run.label} used more than ${run.limits.maxMemoryBytes} bytes of memory and was stopped`));
      });
    }, memoryPollMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outputBytes += chunk.byteLength;
      if (outputBytes > run.limits.maxOutputBytes) kill(new RenderFailure('RenderOutputTooLarge', `${run.label} wrote more than ${run.limits.maxOutputBytes} bytes of output and was stopped`));
      else stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      // The tail explains a failure; the head holds a successful run's warnings.
      stderr = `${stderr}${text}`.slice(-8_000);
      if (stderrHead.length < keptStderrBytes) stderrHead = `${stderrHead}${text}`.slice(0, keptStderrBytes);
    });
    const finish = (): void => {
      clearTimeout(timer);
      clearInterval(memory);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish();
      reject(error.code === 'ENOENT'
        ? toolMissing(run)
        : new RenderFailure('RenderFailed', `${run.label} could not start: ${error.message}`));
    });
    child.on('close', (code) => {
      finish();
      if (killedFor) reject(killedFor);
      else if (code === 0) resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: stderrHead });
      else reject(new RenderFailure('RenderFailed', `${run.label} failed: ${toolMessage(stderr, code)}`));
    });
  });
}

/**
 * sandboxLauncher starts sandboxes ahead of runs (see SandboxLauncher), in a network namespace
 * of their own where the kernel allows one, with the environment every run starts with.
 */
export function sandboxLauncher(size = 1): SandboxLauncher {
  return new SandboxLauncher(namespacePrefix(), sharedEnv, size);
}

/** startSandbox hands the run to a sandbox started ahead, or starts one for it. */
function startSandbox(run: SandboxRun): LaunchedSandbox {
  const env = runEnv(run);
  const started = run.launcher?.take({ command: run.command, args: run.args, cwd: run.cwd, env });
  if (started) return started;
  const [command = run.command, ...args] = [...namespacePrefix(), run.command, ...run.args];
  return spawn(command, args, { cwd: run.cwd, env: { ...sharedEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** namespacePrefix is the command that puts a run in user and network namespaces of its own, when the kernel allows. */
function namespacePrefix(): string[] {
  return canIsolateNetwork() && unshare ? [unshare, '--map-root-user', '--net'] : [];
}

// What every run's environment holds: no PATH, and proxies that refuse every connection.
const sharedEnv: Readonly<Record<string, string>> = Object.freeze({
  PATH: '/nonexistent',
  HTTP_PROXY: closedProxy,
  HTTPS_PROXY: closedProxy,
  http_proxy: closedProxy,
  https_proxy: closedProxy,
  NO_PROXY: '',
  no_proxy: '',
});

/** runEnv is the part of a run's environment that is its own: its HOME and caches, the Go memory limit, and `run.env`. */
function runEnv(run: SandboxRun): Record<string, string> {
  return {
    HOME: run.home,
    TMPDIR: run.home,
    XDG_CACHE_HOME: `${run.home}/.cache`,
    XDG_CONFIG_HOME: `${run.home}/.config`,
    XDG_DATA_HOME: `${run.home}/.local/share`,
    GOMEMLIMIT: String(Math.floor(run.limits.maxMemoryBytes * 0.8)),
    ...run.env,
  };
}

function toolMissing(run: SandboxRun): RenderFailure {
  return new RenderFailure('RenderToolMissing', `${run.label}: ${run.command} is not installed (scripts/setup builds it into tools/bin)`);
}

/** toolMessage is the tool's last words, one line each, without Go's usage dump. */
function toolMessage(stderr: string, code: number | null): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('Usage:'));
  const tail = lines.slice(-6).join(' ').replace(/^Error:\s*/, '');
  return tail || `exit code ${code ?? 'none'}`;
}

async function residentBytes(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match?.[1] ? Number(match[1]) * 1024 : 0;
}
