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
  /** Folders a cold run may not read (see defaultHiddenPaths); a launcher's runs get its own. @defaultValue defaultHiddenPaths */
  hiddenPaths?: readonly string[];
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
// The mount binary when a sandbox can also hide folders and the reconciler's /proc (a mount namespace), else null.
let mount: string | null | undefined;
// The sandbox probes, run by canIsolateNetwork and canHideCredentials (blocking) and by probeSandbox (not).
const unshareBinaries = ['/usr/bin/unshare', '/bin/unshare'];
const mountBinaries = ['/usr/bin/mount', '/bin/mount'];
const networkProbe = ['--map-root-user', '--net', 'true'];
const probeOptions = { stdio: 'ignore', timeout: 5_000, env: {} } as const;

/**
 * defaultHiddenPaths are the folders of credentials a render never needs: the pod's
 * ServiceAccount token (and other projected Secrets) and the chart's Git credentials and cluster
 * kubeconfigs. In a sandbox with namespaces they are covered by empty read-only folders.
 */
export const defaultHiddenPaths: readonly string[] = Object.freeze(['/var/run/secrets', '/run/secrets', '/etc/tidemark/git', '/etc/tidemark/clusters']);

/** canIsolateNetwork tells whether renderers run in a network namespace of their own. */
export function canIsolateNetwork(): boolean {
  if (unshare === undefined) {
    const found = installed(unshareBinaries);
    unshare = found && spawnSync(found, networkProbe, probeOptions).status === 0 ? found : null;
  }
  return unshare !== null;
}

/** mountProbe is unshare's arguments that try the mount namespace a sandbox that hides credentials needs. */
function mountProbe(unshareBinary: string, mountBinary: string): string[] {
  return [...hidingPrefix(unshareBinary, mountBinary, defaultHiddenPaths), '/bin/true'];
}

/** installed is the first of the paths that exists. */
function installed(paths: readonly string[]): string | undefined {
  return paths.find((path) => existsSync(path));
}

/**
 * probeSandbox asks what canIsolateNetwork and canHideCredentials ask, without blocking the event
 * loop (their spawnSync held a reconciler's start for 0.1-0.4 s, its Git fetch and CRD installs
 * with it), and keeps the answers for those calls.
 */
export async function probeSandbox(): Promise<{ network: boolean; credentials: boolean }> {
  if (unshare === undefined) {
    const found = installed(unshareBinaries);
    const status = found ? await exitStatus(found, networkProbe) : undefined;
    // A synchronous probe may have answered meanwhile: the same question, the same answer.
    unshare ??= found && status === 0 ? found : null;
  }
  if (mount === undefined) {
    const found = installed(mountBinaries);
    const status = unshare && found ? await exitStatus(unshare, mountProbe(unshare, found)) : undefined;
    mount ??= found && status === 0 ? found : null;
  }
  return { network: unshare !== null, credentials: mount !== null };
}

/** exitStatus runs a probe with no environment and no output, killed after 5 s; null when it did not exit by itself. */
function exitStatus(command: string, args: readonly string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(command, args, probeOptions);
    child.once('error', () => resolve(null));
    child.once('exit', (code) => resolve(code));
  });
}

/**
 * canHideCredentials tells whether renderers also run in a mount namespace of their own, where
 * hiddenPaths and the /proc entries of the reconciler (its environment, its memory maps) are
 * covered, and the tool, one user namespace further down, cannot uncover them.
 */
export function canHideCredentials(): boolean {
  if (mount === undefined) {
    const found = installed(mountBinaries);
    const probe = canIsolateNetwork() && found ? spawnSync(unshare!, mountProbe(unshare!, found), probeOptions) : undefined;
    mount = found && probe?.status === 0 ? found : null;
  }
  return mount !== null;
}

/**
 * runSandboxed runs a renderer the way Argo CD's repo-server runs its tools: a clean
 * environment (no proxies, credentials or PATH of ours, an empty HOME), no network (a network
 * namespace where the kernel allows one, and a proxy that refuses every connection in any
 * case), credentials out of sight (hiddenPaths and the reconciler's /proc, where a mount
 * namespace is allowed too), and limits on time, output and resident memory. It resolves with standard output and
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
export function sandboxLauncher(size = 1, hiddenPaths: readonly string[] = defaultHiddenPaths): SandboxLauncher {
  return new SandboxLauncher(namespacePrefix(hiddenPaths), sharedEnv, size);
}

/** startSandbox hands the run to a sandbox started ahead, or starts one for it. */
function startSandbox(run: SandboxRun): LaunchedSandbox {
  const env = runEnv(run);
  const started = run.launcher?.take({ command: run.command, args: run.args, cwd: run.cwd, env });
  if (started) return started;
  const [command = run.command, ...args] = [...namespacePrefix(run.hiddenPaths ?? defaultHiddenPaths), run.command, ...run.args];
  return spawn(command, args, { cwd: run.cwd, env: { ...sharedEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * namespacePrefix is the command that puts a run in user and network namespaces of its own, when
 * the kernel allows, and, when it also allows a mount namespace, hides credentials from it first.
 */
function namespacePrefix(hiddenPaths: readonly string[]): string[] {
  if (!canIsolateNetwork() || !unshare) return [];
  if (!canHideCredentials() || !mount) return [unshare, '--map-root-user', '--net'];
  return [unshare, ...hidingPrefix(unshare, mount, hiddenPaths)];
}

// Run by the first sandbox shell, as root of the sandbox's first user namespace: cover each hidden
// folder, and the /proc entries of the reconciler (the shell's parent) and of pid 1 with their
// threads, with empty read-only tmpfs, then exec the command one user and mount namespace further
// down, where those mounts are locked: the tool cannot unmount them. `$PPID` is the reconciler,
// since unshare execs this shell. Values are only expanded in double quotes.
const hidingScript = [
  'unshare_bin=$1; mount_bin=$2; shift 2',
  'hide() { "$mount_bin" -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=0555 tidemark-hidden "$1"; }',
  'while [ "$#" -gt 0 ] && [ "$1" != -- ]; do',
  '  if [ -d "$1" ]; then hide "$1" || exit 126; fi',
  '  shift',
  'done',
  'shift',
  'for pid in "$PPID" 1; do',
  '  [ "$pid" = "$$" ] && continue',
  '  for task in /proc/"$pid"/task/*; do tid=${task##*/}; [ "$tid" != "$pid" ] && [ -d /proc/"$tid" ] && hide /proc/"$tid"; done',
  '  [ -d /proc/"$pid" ] && { hide /proc/"$pid" || exit 126; }',
  'done',
  // The shell exports PWD; a tool started without it (as a waiting sandbox starts it) gets none.
  'unset OLDPWD PWD',
  'exec "$unshare_bin" --map-root-user --mount -- "$@"',
].join('\n');

/** hidingPrefix is unshare's arguments (after its path) that run a command with `hiddenPaths` and the reconciler's /proc covered. */
function hidingPrefix(unshareBinary: string, mountBinary: string, hiddenPaths: readonly string[]): string[] {
  return ['--map-root-user', '--net', '--mount', '/bin/sh', '-c', hidingScript, 'tidemark-sandbox', unshareBinary, mountBinary, ...hiddenPaths, '--'];
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
