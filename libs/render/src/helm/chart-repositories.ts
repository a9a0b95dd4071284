import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { RenderFailure } from '../render-failure';
import { ChartCache } from './chart-cache';
import { checkScheme, getBounded, type ChartCredentials } from './chart-download';
import { archiveInIndex } from './chart-index';
import { archiveDigest, pullOciChart } from './chart-oci';
import type { ChartReference, ChartRepositorySpec, KnownRepository } from './chart-reference';
import { messageOf } from '@tidemark/contracts';

/** ChartLimits bound one chart download. */
export interface ChartLimits {
  /** Largest index.yaml. @defaultValue 64 MiB */
  maxIndexBytes: number;
  /** Largest chart archive as downloaded (compressed). @defaultValue 16 MiB */
  maxArchiveBytes: number;
  /** Largest chart archive once inflated (Helm's own limit is 100 MiB). @defaultValue 64 MiB */
  maxUnpackedBytes: number;
  /** Most entries in an archive. @defaultValue 5_000 */
  maxEntries: number;
  /** One request, index or archive. @defaultValue 60_000 */
  timeoutMs: number;
}

export const defaultChartLimits: Readonly<ChartLimits> = Object.freeze({
  maxIndexBytes: 64 * 1024 * 1024,
  maxArchiveBytes: 16 * 1024 * 1024,
  maxUnpackedBytes: 64 * 1024 * 1024,
  maxEntries: 5_000,
  timeoutMs: 60_000,
});

export interface ChartRepositoriesOptions {
  repositories: readonly ChartRepositorySpec[];
  /** Where verified archives are kept, by repository, name, version and digest. Shared by processes. */
  cacheDir: string;
  limits?: Partial<ChartLimits>;
  /** The pinned helm, whose own OCI client pulls charts from oci:// repositories. @defaultValue 'helm' on PATH */
  helm?: string;
}

/**
 * ChartRepositories downloads chart dependencies from configured HTTP chart repositories, the
 * way `helm dependency build` would, but bounded: the index gives the archive's URL and SHA-256
 * digest, the archive is read with a size limit, checked against the digest before it is
 * inflated, then inflated as a stream with its own limit and refused for any path out of the
 * chart folder. A verified archive is kept on disk; the next render of that version makes no
 * request. Credentials go only to the repository's own origin and into no message.
 */
export class ChartRepositories {
  private readonly known: KnownRepository[];
  private readonly limits: ChartLimits;
  private readonly cache: ChartCache;
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly helm: string;

  constructor(options: ChartRepositoriesOptions) {
    this.helm = options.helm ?? 'helm';
    this.limits = { ...defaultChartLimits, ...options.limits };
    this.known = options.repositories.map((spec) => ({ ...spec, base: baseOf(spec.url) }));
    this.cache = new ChartCache(options.cacheDir, this.limits);
  }

  /** find returns the configured repository a Chart.yaml `repository:` names (trailing slashes aside). */
  find(url: string): KnownRepository | undefined {
    const wanted = url.replace(/\/+$/, '');
    return this.known.find((repository) => repository.base.href.replace(/\/+$/, '') === wanted);
  }

  /**
   * fetch returns the path of the dependency's verified archive in the cache, downloading it
   * when it is not there. `path` is the Chart.yaml that names it, for messages.
   */
  async fetch(reference: ChartReference, path: string): Promise<string> {
    const key = `${reference.repository.base.href}\0${reference.name}\0${reference.version}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fetchOnce(reference, `dependency "${reference.name}" ${reference.version} from ${reference.repository.base.href}`)
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    try {
      return await pending;
    } catch (error) {
      // Units sharing a download each get the failure in the words of their own Chart.yaml.
      if (!(error instanceof RenderFailure)) throw error;
      throw new RenderFailure(error.code, `${path}: ${error.message}`, path);
    }
  }

  private async fetchOnce(reference: ChartReference, what: string): Promise<string> {
    const cached = await this.cache.find(reference);
    if (cached) return cached;
    const credentials = await this.credentialsOf(reference.repository, what);
    if (reference.repository.base.protocol === 'oci:') return this.pullOci(reference, credentials?.value, what);
    const common = { ...(credentials ? { credentials } : {}), ...credentialsFrom(reference.repository), timeoutMs: this.limits.timeoutMs };
    const chunks: Uint8Array[] = [];
    const indexUrl = new URL('index.yaml', reference.repository.base);
    await getBounded({ ...common, url: indexUrl, maxBytes: this.limits.maxIndexBytes, tooLarge: 'ChartTooLarge', what: `${what}: index.yaml` }, (chunk) => void chunks.push(chunk));
    const archive = archiveInIndex(Buffer.concat(chunks).toString('utf8'), reference, what);
    checkScheme(archive.url, what);
    return this.cache.store(reference, archive.digest, what, async (sink) => {
      const digest = createHash('sha256');
      await getBounded({ ...common, url: archive.url, maxBytes: this.limits.maxArchiveBytes, tooLarge: 'ChartTooLarge', what }, async (chunk) => {
        digest.update(chunk);
        await sink(chunk);
      });
      const actual = digest.digest('hex');
      if (actual !== archive.digest) {
        throw new RenderFailure('ChartDigestMismatch', `${what}: the archive's SHA-256 digest is ${actual}, the repository's index.yaml says ${archive.digest}; it is refused`);
      }
    });
  }

  /** pullOci pulls a chart with helm's OCI client and keeps it in the cache, inspected like a downloaded one. */
  private pullOci(reference: ChartReference, credentials: ChartCredentials | undefined, what: string): Promise<string> {
    const pull = { helm: this.helm, reference, ...(credentials ? { credentials } : {}), maxArchiveBytes: this.limits.maxArchiveBytes, timeoutMs: this.limits.timeoutMs, what };
    return pullOciChart(pull, async (archive) => this.cache.store(reference, await archiveDigest(archive), what, async (sink) => {
      for await (const chunk of createReadStream(archive)) await sink(chunk as Buffer);
    }));
  }

  private async credentialsOf(repository: KnownRepository, what: string): Promise<{ origin: string; value: ChartCredentials } | undefined> {
    if (!repository.credentials) return undefined;
    let value: ChartCredentials;
    try {
      value = await repository.credentials();
    } catch (error) {
      const reason = messageOf(error);
      throw new RenderFailure('ChartCredentialsMissing', `${what}: no credentials for the repository: ${reason}`);
    }
    return { origin: repository.base.origin, value };
  }
}

function credentialsFrom(repository: KnownRepository): { credentialsFrom?: string } {
  return repository.credentialsFrom ? { credentialsFrom: repository.credentialsFrom } : {};
}

function baseOf(url: string): URL {
  if (url.startsWith('oci://')) return ociBaseOf(url);
  let base: URL;
  try {
    base = new URL(url.replace(/\/*$/, '/'));
  } catch {
    throw new Error(`chart repository "${url}" is not a URL`);
  }
  if (base.search || base.hash) throw new Error(`chart repository ${base.origin}${base.pathname}: give the URL without a query or fragment`);
  checkScheme(base, `chart repository ${base.origin}${base.pathname}`);
  return base;
}

/** ociBaseOf reads oci://host[:port]/path: a registry host and a repository path, nothing else. */
function ociBaseOf(url: string): URL {
  let base: URL;
  try {
    base = new URL(url.replace(/\/*$/, '/'));
  } catch {
    throw new Error(`chart repository "${url}" is not a URL`);
  }
  if (base.username || base.password) throw new Error(`chart repository ${base.host}: carries credentials in the URL; give the repository a secretRef`);
  if (base.search || base.hash || !base.host) throw new Error(`chart repository ${url}: give oci://host/path without a query or fragment`);
  return base;
}
