import { spawn, type ChildProcess } from 'node:child_process';

/** AppProcess is one app bundle running as a child process, with the tail of its output for failure messages. */
export interface AppProcess {
  name: string;
  child: ChildProcess;
  /** The last 8,000 characters of stdout and stderr together. */
  output: string;
  /** True once the output held `startedLine`. */
  started: boolean;
  /** Resolves when the process has exited, however. */
  exited: Promise<void>;
}

/** AppProcessOptions: what to run and the line that says it started. */
export interface AppProcessOptions {
  name: string;
  bundle: string;
  /** Added to this process's environment. */
  env: Record<string, string>;
  /** A line of output that says the app has started. @defaultValue none: never `started` */
  startedLine?: string;
}

/** startAppProcess runs `node bundle` and keeps the tail of its output. */
export function startAppProcess(options: AppProcessOptions): AppProcess {
  const child = spawn(process.execPath, [options.bundle], { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const app: AppProcess = { name: options.name, child, output: '', started: false, exited: new Promise((resolve) => child.once('exit', () => resolve())) };
  const keep = (chunk: Buffer) => {
    app.output = `${app.output}${chunk.toString()}`.slice(-8_000);
    if (!app.started && options.startedLine && app.output.includes(options.startedLine)) app.started = true;
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return app;
}

/** killAppProcess SIGKILLs the process (if it still runs) and resolves once it is gone. */
export async function killAppProcess(app: AppProcess): Promise<void> {
  if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
  await app.exited;
}
