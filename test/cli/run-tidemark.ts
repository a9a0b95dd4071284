// Runs the real `tidemark` binary (apps/cli/bin/tidemark.mjs) as a child process, as a user would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const binary = fileURLToPath(new URL('../../apps/cli/bin/tidemark.mjs', import.meta.url));

export interface TidemarkRun { code: number | null; stdout: string; stderr: string }

/** runTidemark runs the binary with only the environment given (plus PATH), and collects its output. */
export function runTidemark(args: readonly string[], env: Record<string, string> = {}): Promise<TidemarkRun> {
  return runProgram(process.execPath, [binary, ...args], env);
}

/** runProgram runs a command with only the environment given (plus PATH, and a HOME with no config), and collects its output. */
export function runProgram(command: string, args: readonly string[], env: Record<string, string> = {}): Promise<TidemarkRun> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent-home', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
