import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scrubText } from '@tidemark/contracts';
import { RenderFailure } from '../render-failure';
import type { ChartCredentials } from './chart-download';
import type { ChartReference } from './chart-reference';

/** OciChartPull is one `helm pull` of a chart from an OCI registry. */
export interface OciChartPull {
  helm: string;
  reference: ChartReference;
  credentials?: ChartCredentials;
  maxArchiveBytes: number;
  timeoutMs: number;
  what: string;
}

const maxHelmOutput = 16 * 1024;

/**
 * pullOciChart runs the pinned helm's own OCI client (`helm pull oci://host/path/<name> --version
 * <exact>`) in a private temporary folder: the login goes in a registry config file there (never on
 * the command line), the repository's CA in a file beside it, and helm's config, cache and data homes
 * point there too, so nothing is read from or left in the reconciler's home. The pull is killed at
 * the deadline; an archive larger than the limit is refused before it is inspected. It hands the
 * archive to `use` and removes the folder afterwards. What helm prints is scrubbed and truncated.
 */
export async function pullOciChart<T>(pull: OciChartPull, use: (archive: string) => Promise<T>): Promise<T> {
  const { reference } = pull;
  const base = reference.repository.base;
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-oci-chart-'));
  try {
    await mkdir(join(dir, 'out'));
    const registryConfig = join(dir, 'registry.json');
    const auths = pull.credentials ? { [base.host]: { auth: Buffer.from(`${pull.credentials.username}:${pull.credentials.password}`).toString('base64') } } : {};
    await writeFile(registryConfig, JSON.stringify({ auths }), { mode: 0o600 });
    const args = ['pull', `oci://${base.host}${base.pathname.replace(/\/+$/, '')}/${reference.name}`, '--version', reference.version, '--destination', join(dir, 'out'), '--registry-config', registryConfig];
    if (reference.repository.certificateAuthority) {
      await writeFile(join(dir, 'ca.pem'), reference.repository.certificateAuthority);
      args.push('--ca-file', join(dir, 'ca.pem'));
    }
    await runHelm(pull, args, dir);
    const archives = (await readdir(join(dir, 'out')).catch(() => [] as string[])).filter((name) => name.endsWith('.tgz'));
    if (archives.length !== 1) throw new RenderFailure('ChartRepositoryFailed', `${pull.what}: helm pull left ${archives.length} archives, not one`);
    const archive = join(dir, 'out', archives[0]!);
    const size = (await stat(archive)).size;
    if (size > pull.maxArchiveBytes) throw new RenderFailure('ChartTooLarge', `${pull.what}: the chart archive is ${size} bytes, larger than ${pull.maxArchiveBytes}, and is refused`);
    return await use(archive);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runHelm(pull: OciChartPull, args: string[], home: string): Promise<void> {
  // helm needs no PATH to pull; nothing of the reconciler's environment (credentials, proxies) reaches it.
  const env = { HOME: home, HELM_CONFIG_HOME: join(home, 'config'), HELM_CACHE_HOME: join(home, 'cache'), HELM_DATA_HOME: join(home, 'data') };
  return new Promise((resolve, reject) => {
    const child = spawn(pull.helm, args, { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-maxHelmOutput));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), pull.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new RenderFailure('RenderToolMissing', `${pull.what}: helm could not be started (${pull.helm}): ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      if (signal === 'SIGKILL') return reject(new RenderFailure('ChartRepositoryFailed', `${pull.what}: helm pull did not finish within ${pull.timeoutMs} ms`));
      reject(new RenderFailure('ChartRepositoryFailed', `${pull.what}: helm pull failed: ${shownOutput(output)}${advice(output, pull)}`));
    });
  });
}

function shownOutput(output: string): string {
  return scrubText(output.replace(/\s+/g, ' ').trim()).slice(0, 400);
}

function advice(output: string, pull: OciChartPull): string {
  if (!/\b(401|403|unauthorized|denied)\b/i.test(output)) return '';
  const from = pull.reference.repository.credentialsFrom;
  return pull.credentials ? `; the credentials from ${from ?? 'its secretRef'} were refused` : '; the registry needs credentials: give the repository a secretRef (a Secret with username and password) in render.chartRepositories';
}

/** archiveDigest reads a file's SHA-256 (hex), the name a verified archive is kept under. */
export function archiveDigest(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path).on('error', reject).on('data', (chunk) => hash.update(chunk)).on('end', () => resolve(hash.digest('hex')));
  });
}
