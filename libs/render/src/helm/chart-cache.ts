import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { inspectChartArchive, type ArchiveLimits } from './chart-archive';
import type { ChartReference } from './chart-reference';

const archiveName = /^[0-9a-f]{64}\.tgz$/;

/**
 * ChartCache keeps verified chart archives on disk at
 * `<cacheDir>/<repository hash>/<name>/<version>/<sha256>.tgz`. An archive enters only after its
 * digest matched the index and its inflated contents passed inspection, through a rename, so
 * processes sharing the folder never see half an archive. A hit is checked against the digest
 * in its name again, so a damaged file is dropped and downloaded anew.
 */
export class ChartCache {
  constructor(private readonly dir: string, private readonly limits: ArchiveLimits) {}

  /** find returns the cached archive of a chart version, if one is there and intact. */
  async find(reference: ChartReference): Promise<string | undefined> {
    const folder = this.folderOf(reference);
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter((entry) => archiveName.test(entry)).sort()) {
      const path = join(folder, name);
      if ((await sha256Of(path)) === name.slice(0, 64)) return path;
      await rm(path, { force: true });
    }
    return undefined;
  }

  /**
   * store writes what `download` hands its sink to a temporary file, inspects it, and moves it
   * into place as `<digest>.tgz`. `download` must throw when the bytes do not have the digest.
   */
  async store(reference: ChartReference, digest: string, what: string, download: (sink: (chunk: Uint8Array) => Promise<void>) => Promise<void>): Promise<string> {
    const folder = this.folderOf(reference);
    await mkdir(folder, { recursive: true });
    const partial = join(folder, `.partial-${randomBytes(8).toString('hex')}`);
    const file = await open(partial, 'wx', 0o600);
    try {
      try {
        await download(async (chunk) => {
          await file.write(chunk);
        });
      } finally {
        await file.close();
      }
      await inspectChartArchive(partial, reference.name, this.limits, what);
      const final = join(folder, `${digest}.tgz`);
      await rename(partial, final);
      return final;
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  private folderOf(reference: ChartReference): string {
    const repository = createHash('sha256').update(reference.repository.base.href).digest('hex').slice(0, 24);
    return join(this.dir, repository, reference.name, reference.version);
  }
}

function sha256Of(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path).on('error', reject).on('data', (chunk) => hash.update(chunk)).on('end', () => resolve(hash.digest('hex')));
  });
}
