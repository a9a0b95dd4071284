// Starts the programs the images run (a bundle, the sample Git server) as plain processes,
// and waits for their HTTP endpoints.
import { spawn, type ChildProcess } from 'node:child_process';

/** Started is one running program with its combined output so far. */
export interface Started {
  child: ChildProcess;
  output(): string;
  /**
   * stop does what the kubelet does to a pod: SIGTERM, then SIGKILL once the grace period is over.
   * It resolves with the exit code (null when the program had to be killed) and how long it took.
   */
  stop(graceMs?: number): Promise<{ code: number | null; ms: number }>;
}

/** startProgram runs `node file` with only the given environment (plus PATH). */
export function startProgram(file: string, env: Record<string, string>, args: string[] = []): Started {
  return startCommand(process.execPath, [...args, file], env);
}

/** startCommand runs a command with only the given environment (plus PATH). */
export function startCommand(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => { output = `${output}${chunk.toString()}`.slice(-20_000); };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    async stop(graceMs = 90_000) {
      const started = Date.now();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<null>((resolve) => setTimeout(() => { child.kill('SIGKILL'); resolve(null); }, graceMs))]);
      return { code, ms: Date.now() - started };
    },
  };
}

/** waitForHttp polls a URL until it answers `status`, or fails with the program's output. */
export async function waitForHttp(url: string, program: Started, status = 200, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (program.child.exitCode !== null) throw new Error(`the program exited (${program.child.exitCode}) before ${url} answered:\n${program.output()}`);
    try {
      const response = await fetch(url);
      if (response.status === status) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last}):\n${program.output()}`);
}
