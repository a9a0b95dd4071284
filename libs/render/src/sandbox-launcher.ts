import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** LaunchedSandbox is a sandbox's process with its output pipes. */
export type LaunchedSandbox = ChildProcess & { stdout: Readable; stderr: Readable };

/** SandboxLaunch is what a started sandbox is told to run: a command, its arguments, folder and environment. */
export interface SandboxLaunch {
  command: string;
  args: readonly string[];
  cwd: string;
  /** Added to the environment the sandbox was started with. */
  env: Readonly<Record<string, string>>;
}

// The waiting shell: it reads the folder, the environment and the command, one line each (with
// counts), and execs the command there. Values are only ever expanded in double quotes: nothing
// read is parsed as shell. `cd` sets PWD and OLDPWD, which a directly spawned tool does not get.
// Exit 125 means the request never came whole (the parent went away).
const waiter = [
  'IFS= read -r dir || exit 125',
  'cd -- "$dir" || exit 125',
  'unset OLDPWD PWD',
  'IFS= read -r n || exit 125',
  'while [ "$n" -gt 0 ]; do IFS= read -r kv || exit 125; export "$kv" || exit 125; n=$((n - 1)); done',
  'set --',
  'IFS= read -r n || exit 125',
  'while [ "$n" -gt 0 ]; do IFS= read -r arg || exit 125; set -- "$@" "$arg"; n=$((n - 1)); done',
  'exec "$@" </dev/null',
].join('\n');

const shell = '/bin/sh';
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * SandboxLauncher starts sandboxes ahead of the runs that use them: each is a process that has
 * already made its own user and network namespace (`unshare`) and waits, in a shell, to be told
 * what to exec. A run then costs one exec, where starting it cold costs a fork of this (large)
 * process, `unshare` and the exec; the next sandbox starts after the run. Every run
 * still gets fresh namespaces of its own and a clean environment: a started sandbox serves one run.
 * Nothing starts before the first `take`; `close` stops the waiting ones.
 */
export class SandboxLauncher {
  private readonly ready: ChildProcess[] = [];
  private closed = false;

  /**
   * @param prefix the command and arguments that make the namespaces (e.g. unshare's), empty for none
   * @param env the environment every run starts with (no credentials: the parent's is never passed)
   * @param size sandboxes kept waiting @defaultValue 1
   */
  constructor(private readonly prefix: readonly string[], private readonly env: Readonly<Record<string, string>>, private readonly size = 1) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`a sandbox launcher keeps at least one sandbox waiting, not ${size}`);
  }

  /**
   * take hands a waiting sandbox the launch and returns its process (the next one starts when it
   * ends); it returns undefined (start the run cold) when none is waiting or the launch cannot be told in
   * lines (a newline in a value, an odd variable name, a missing command).
   */
  take(launch: SandboxLaunch): LaunchedSandbox | undefined {
    if (this.closed || !describable(launch) || !existsSync(shell)) return undefined;
    const child = this.ready.shift();
    if (!child || child.exitCode !== null || child.signalCode !== null || !child.stdin?.writable || !hasOutput(child)) {
      setImmediate(() => this.fill());
      return undefined;
    }
    // The next sandbox starts when this run has ended, not while it runs: its fork blocks this
    // process for a few milliseconds, and on a loaded machine its start takes CPU from the tool.
    child.once('close', () => setImmediate(() => this.fill()));
    child.ref();
    for (const stream of [child.stdout, child.stderr]) (stream as { ref?: () => void } | null)?.ref?.();
    const env = Object.entries(launch.env).map(([name, value]) => `${name}=${value}`);
    child.stdin.end(`${[launch.cwd, String(env.length), ...env, String(launch.args.length + 1), launch.command, ...launch.args].join('\n')}\n`);
    return child;
  }

  /** waitingPids are the processes of the sandboxes waiting for a run. */
  waitingPids(): number[] {
    return this.ready.flatMap((child) => (child.pid === undefined ? [] : [child.pid]));
  }

  /** close stops the sandboxes waiting; a launcher closed takes no more launches. */
  close(): void {
    this.closed = true;
    for (const child of this.ready.splice(0)) child.kill('SIGKILL');
  }

  /** fill starts sandboxes until `size` wait; they hold no reference that keeps this process alive. */
  private fill(): void {
    while (!this.closed && this.ready.length < this.size) {
      const [command = shell, ...args] = [...this.prefix, shell, '-c', waiter];
      const child = spawn(command, args, { env: { ...this.env }, stdio: ['pipe', 'pipe', 'pipe'] });
      // A sandbox that dies while it waits is dropped; its error must not go unhandled.
      const drop = (): void => {
        const at = this.ready.indexOf(child);
        if (at >= 0) this.ready.splice(at, 1);
      };
      child.on('error', drop);
      child.on('exit', drop);
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
      this.ready.push(child);
    }
  }
}

function hasOutput(child: ChildProcess): child is LaunchedSandbox {
  return child.stdout !== null && child.stderr !== null;
}

/** describable tells whether a launch can be told to the waiting shell, one value a line. */
function describable(launch: SandboxLaunch): boolean {
  const values = [launch.cwd, launch.command, ...launch.args, ...Object.values(launch.env)];
  return launch.command.startsWith('/') && existsSync(launch.command)
    && values.every((value) => !value.includes('\n') && !value.includes('\0'))
    && Object.keys(launch.env).every((name) => envName.test(name));
}
