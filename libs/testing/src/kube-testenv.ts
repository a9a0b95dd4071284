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
/** kubeControllersBinary holds kube-controller-manager, kube-scheduler and KWOK, for full control planes. */
export const kubeControllersBinary = join(testenvDir, 'bin', 'kube-controllers');

/** ControlPlane is one running kube-apiserver (with embedded etcd) from the test rig. */
export interface ControlPlane {
  name: string;
  /** controllers is true when kube-controller-manager, kube-scheduler and KWOK nodes run too. */
  controllers: boolean;
  /** server is https://127.0.0.1:PORT. */
  server: string;
  /** pid is the process id of the running API server (for a bench's CPU accounting); undefined while halted. */
  readonly pid: number | undefined;
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
  /** With `auditLog`, the API server's audit log: one JSON line per finished request (see readAuditLog). */
  auditLogPath?: string;
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

/** buildKubeControllers builds the controllers binary that full control planes run (see buildGoProgram). */
export function buildKubeControllers(log?: (line: string) => void): Promise<string> {
  return buildGoProgram({
    dir: testenvDir,
    package: './controllers',
    binary: kubeControllersBinary,
    label: 'kube-controllers',
    firstBuildNote: 'kube-controller-manager, kube-scheduler and KWOK from the upstream Go modules, for full control planes; the first build takes several minutes on 2 cores',
  }, log);
}

/** ControllerOptions shape the simulated cluster of a full control plane. */
export interface ControllerOptions {
  /** Simulated (KWOK) nodes to register. @defaultValue 2 */
  nodes?: number;
  /** Pods each node can hold. @defaultValue 110 (the kubelet's default) */
  podsPerNode?: number;
}

export interface StartControlPlaneOptions {
  /** A name for logs and for the state directory. @defaultValue `cluster-<n>` */
  name?: string;
  /**
   * controllers makes it a full control plane: kube-controller-manager, kube-scheduler and
   * KWOK's simulated nodes run too, and start resolves once their leases are held and the
   * nodes are Ready. @defaultValue false (the API server alone, for the fast suites)
   */
  controllers?: boolean | ControllerOptions;
  /** auditLog makes the API server log every finished request (metadata only), to count requests. @defaultValue false */
  auditLog?: boolean;
}

/** startControlPlane starts one kube-apiserver with embedded etcd and waits until /readyz answers. */
export async function startControlPlane(options: StartControlPlaneOptions = {}): Promise<ControlPlane> {
  const binary = await buildKubeTestenv();
  const controllers = controllerArgs(options.controllers);
  if (controllers.length > 0) await buildKubeControllers();
  const name = options.name ?? 'cluster';
  const what = controllers.length > 0 ? `full control plane ${name}` : `kube-apiserver ${name}`;
  const readyWithinMs = controllers.length > 0 ? 360_000 : 180_000;
  const dir = await mkdtemp(join(tmpdir(), `tidemark-kube-${name}-`));
  const auditLogPath = options.auditLog ? join(dir, 'audit.log') : undefined;
  const audit = auditLogPath ? ['--audit-log', auditLogPath] : [];
  let child: ChildProcess | undefined;
  let port = 0;
  let server = '';

  const launch = async () => {
    const spawned = spawn(binary, ['serve', '--dir', dir, '--port', String(port), ...controllers, ...audit], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = spawned;
    const logChunks: string[] = [];
    spawned.stderr?.on('data', (chunk: Buffer) => {
      logChunks.push(chunk.toString());
      if (logChunks.length > 200) logChunks.shift();
    });
    server = await new Promise<string>((ready, fail) => {
      const timer = setTimeout(() => fail(new RigError(`${what} was not ready within ${readyWithinMs / 1000} s. Its log:\n${logChunks.join('').slice(-3000)}`)), readyWithinMs);
      createInterface({ input: spawned.stdout! }).on('line', (line) => {
        const match = /^kube-testenv ready server=(\S+) kubeconfig=(\S+)/.exec(line);
        if (match?.[1]) { clearTimeout(timer); ready(match[1]); }
      });
      spawned.once('exit', (code) => {
        clearTimeout(timer);
        fail(new RigError(`${what} exited with code ${code} before it was ready. Its log:\n${logChunks.join('').slice(-3000)}`));
      });
    });
    port = Number(new URL(server).port);
  };
  await launch();
  const kubeconfigPath = join(dir, 'kubeconfig');
  const kubeconfig = await readFile(kubeconfigPath, 'utf8');

  return {
    name,
    controllers: controllers.length > 0,
    get server() { return server; },
    get pid() { return child?.exitCode === null && child.signalCode === null ? child.pid : undefined; },
    kubeconfigPath,
    kubeconfig,
    async halt() { if (child) await stopProcess(child, 20_000); },
    async restart() { await launch(); },
    async stop() {
      if (child) await stopProcess(child, 20_000);
      await rm(dir, { recursive: true, force: true });
    },
    kubectl: (args, input) => kubectl(kubeconfigPath, args, input),
    ...(auditLogPath ? { auditLogPath } : {}),
  };
}

function controllerArgs(controllers: StartControlPlaneOptions['controllers']): string[] {
  if (!controllers) return [];
  const { nodes = 2, podsPerNode = 110 } = controllers === true ? {} : controllers;
  if (!Number.isInteger(nodes) || nodes < 1 || !Number.isInteger(podsPerNode) || podsPerNode < 1) {
    throw new RigError(`startControlPlane: controllers.nodes (${nodes}) and controllers.podsPerNode (${podsPerNode}) must be whole numbers of at least 1`);
  }
  return ['--controllers', '--nodes', String(nodes), '--pods-per-node', String(podsPerNode)];
}

/**
 * startControlPlanes starts n control planes side by side, one process each; `controllers`
 * lists the indexes (from 0) that run as full control planes.
 */
export async function startControlPlanes(count: number, prefix = 'cluster', controllers: readonly number[] = []): Promise<ControlPlane[]> {
  await buildKubeTestenv();
  const planes: ControlPlane[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      planes.push(await startControlPlane({ name: `${prefix}-${index + 1}`, controllers: controllers.includes(index) }));
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
