import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** RigError is a failure of the test rig itself, with the fix in its message. */
export class RigError extends Error {
  readonly code = 'RigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RigError';
  }
}

/** commandExists tells whether a program can be found on PATH. */
export async function commandExists(command: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    child.on('exit', (code) => resolve(code === 0));
    child.on('error', () => resolve(false));
  });
}

/** run executes a command to completion and returns its stdout; it rejects with stderr on failure. */
export function run(command: string, args: string[], options: SpawnOptions & { input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    // 'close', not 'exit': at 'exit' the output may not all be read yet (a loaded machine gave '' for git rev-parse).
    child.on('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}: ${stderr.trim()}`));
    });
    // A program that exits without reading its input must not fail the caller with EPIPE.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
  });
}

/** stopProcess sends SIGTERM, waits up to graceMs, then SIGKILL; resolves once the process is gone. */
export async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
