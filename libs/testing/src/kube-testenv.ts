import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { RigError, stopProcess } from './process';
import { buildGoProgram } from './go-build';

const testenvDir = resolve(fileURLToPath(import.meta.url), '../../../../test/kube-testenv');
/** kubeTestenvBinary is where the rig's control-plane binary is built. */
export const kubeTestenvBinary = join(testenvDir, 'bin', 'kube-testenv');

/** ControlPlane is one running kube-apiserver (with embedded etcd) from the test rig. */
export interface ControlPlane {
  name: string;
  /** server is https://127.0.0.1:PORT. */
  server: string;
  kubeconfigPath: string;
  /** kubeconfig is the file's content, ready for KubeConfig.loadFromString. */
  kubeconfig: string;
  /** stop ends the API server and etcd cleanly and removes the state directory. */
  stop(): Promise<void>;
  /** halt ends the server but keeps its state, so restart brings back the same cluster on the same port. */
  halt(): Promise<void>;
  restart(): Promise<void>;
  /** kubectl runs the real kubectl (a subcommand of the rig binary) against this control plane. */
  kubectl(args: string[], input?: string): Promise<string>;
}

/** buildKubeTestenv builds the control-plane binary when its sources changed (see buildGoProgram). */
export function buildKubeTestenv(log?: (line: string) => void): Promise<string> {
  return buildGoProgram({
    dir: testenvDir,
    binary: kubeTestenvBinary,
    label: 'kube-testenv',
    firstBuildNote: 'kube-apiserver, etcd and kubectl from the upstream Go modules; the first build takes 5-15 minutes on 2 cores, later ones come from the Go cache',
  }, log);
}

export interface StartControlPlaneOptions {
  /** A name for logs and for the state directory. @defaultValue `cluster-<n>` */
  name?: string;
  /** Where the API server's stderr goes. @defaultValue a file `apiserver.log` in its state directory */
  logFile?: string;
}

/** startControlPlane starts one kube-apiserver with embedded etcd and waits until /readyz answers. */
export async function startControlPlane(options: StartControlPlaneOptions = {}): Promise<ControlPlane> {
  const binary = await buildKubeTestenv();
  const name = options.name ?? 'cluster';
  const dir = await mkdtemp(join(tmpdir(), `tidemark-kube-${name}-`));
  let child: ChildProcess | undefined;
  let port = 0;
  let server = '';

  const launch = async () => {
    const spawned = spawn(binary, ['serve', '--dir', dir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = spawned;
    const logChunks: string[] = [];
    spawned.stderr?.on('data', (chunk: Buffer) => {
      logChunks.push(chunk.toString());
      if (logChunks.length > 200) logChunks.shift();
    });
    server = await new Promise<string>((ready, fail) => {
      const timer = setTimeout(() => fail(new RigError(`kube-apiserver ${name} was not ready within 180 s. Its log:\n${logChunks.join('').slice(-3000)}`)), 180_000);
      createInterface({ input: spawned.stdout! }).on('line', (line) => {
        const match = /^kube-testenv ready server=(\S+) kubeconfig=(\S+)/.exec(line);
        if (match?.[1]) { clearTimeout(timer); ready(match[1]); }
      });
      spawned.once('exit', (code) => {
        clearTimeout(timer);
        fail(new RigError(`kube-apiserver ${name} exited with code ${code} before it was ready. Its log:\n${logChunks.join('').slice(-3000)}`));
      });
    });
    port = Number(new URL(server).port);
  };
  await launch();
  const kubeconfigPath = join(dir, 'kubeconfig');
  const kubeconfig = await readFile(kubeconfigPath, 'utf8');

  return {
    name,
    get server() { return server; },
    kubeconfigPath,
    kubeconfig,
    async halt() { if (child) await stopProcess(child, 20_000); },
    async restart() { await launch(); },
    async stop() {
      if (child) await stopProcess(child, 20_000);
      await rm(dir, { recursive: true, force: true });
    },
    kubectl: (args, input) => kubectl(kubeconfigPath, args, input),
  };
}

/** startControlPlanes starts n control planes side by side, one process each. */
export async function startControlPlanes(count: number, prefix = 'cluster'): Promise<ControlPlane[]> {
  await buildKubeTestenv();
  const planes: ControlPlane[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      planes.push(await startControlPlane({ name: `${prefix}-${index + 1}` }));
    }
    return planes;
  } catch (error) {
    await Promise.all(planes.map((plane) => plane.stop()));
    throw error;
  }
}

/** kubectl runs the upstream kubectl built into the rig binary. */
export function kubectl(kubeconfigPath: string, args: string[], input?: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(kubeTestenvBinary, ['kubectl', '--kubeconfig', kubeconfigPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done(stdout) : fail(new Error(`kubectl ${args.join(' ')}: ${stderr.trim()}`))));
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}
