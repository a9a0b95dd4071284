// Builds the images with scripts/build-images (buildah) and runs them with podman, with the
// project's own container configuration (deploy/docker/containers.sh: vfs storage under
// .tidemark/containers, runc). A machine without buildah, podman or runc fails the suite with what
// to install: scripts/setup installs them, so CI never skips the images quietly.
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from './render';

/** BuiltImage is what scripts/build-images records in dist/images/<app>.json. */
export interface BuiltImage {
  app: string;
  image: string;
  id: string;
  digest: string;
  sizeBytes: number;
  revision: string;
  buildSeconds?: number;
}

/**
 * useProjectContainers points buildah and podman at the project's configuration and storage (for
 * this process and the commands it runs), or throws naming the missing tools.
 */
export function useProjectContainers(): void {
  const missing = ['buildah', 'podman', 'runc'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  if (missing.length > 0) {
    throw new Error(`${missing.join(', ')} not installed: the image suites build the images with buildah and run them with podman (runc). Run scripts/setup, or apt-get install -y buildah podman runc uidmap`);
  }
  const paths = spawnSync('bash', ['-c', '. deploy/docker/containers.sh && printf "%s\\n%s" "$CONTAINERS_CONF" "$CONTAINERS_STORAGE_CONF"'], { cwd: repoRoot, encoding: 'utf8' });
  if (paths.status !== 0) throw new Error(`deploy/docker/containers.sh failed: ${paths.stderr}`);
  const [conf, storage] = paths.stdout.split('\n');
  process.env.CONTAINERS_CONF = conf;
  process.env.CONTAINERS_STORAGE_CONF = storage;
}

/** command runs a program with this process's environment and resolves with its stdout, or rejects with its output. */
export function command(program: string, args: readonly string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(program, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString()}`.slice(-20_000)));
    child.on('error', fail);
    child.on('close', (code, signal) => (code === 0 ? done(stdout) : fail(new Error(`${program} ${args.join(' ')} (exit ${code ?? signal}):\n${stderr.trim()}\n${stdout.slice(-4_000)}`))));
  });
}

/** podman runs one podman command. */
export function podman(args: readonly string[], timeoutMs?: number): Promise<string> {
  return command('podman', args, timeoutMs);
}

/**
 * buildImages runs scripts/build-images for the apps (it rebuilds only when what the image is
 * made from changed: the first build takes several minutes on 2 cores) and returns their records.
 */
export async function buildImages(apps: readonly string[]): Promise<Record<string, BuiltImage>> {
  await command(join(repoRoot, 'scripts/build-images'), apps.flatMap((app) => ['--app', app]), 3_000_000);
  const built: Record<string, BuiltImage> = {};
  for (const app of apps) built[app] = JSON.parse(await readFile(join(repoRoot, 'dist/images', `${app}.json`), 'utf8')) as BuiltImage;
  return built;
}

/** healthCheckOf is the exec form of a Dockerfile's HEALTHCHECK CMD (OCI images do not carry it, so a test runs it with podman exec). */
export async function healthCheckOf(app: string): Promise<string[]> {
  const text = (await readFile(join(repoRoot, `deploy/docker/${app}.Dockerfile`), 'utf8')).replace(/\\\n/g, ' ');
  const line = text.split('\n').find((candidate) => candidate.startsWith('HEALTHCHECK'));
  const exec = /\bCMD\s+(\[.*\])\s*$/.exec(line ?? '')?.[1];
  if (!exec) throw new Error(`deploy/docker/${app}.Dockerfile: no HEALTHCHECK ... CMD [...] line`);
  return JSON.parse(exec) as string[];
}
