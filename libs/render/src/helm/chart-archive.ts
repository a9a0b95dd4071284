import { createReadStream } from 'node:fs';
import { posix } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Header } from 'tar-stream';
import { RenderFailure } from '../render-failure';
import { messageOf } from '@tidemark/contracts';

/** ArchiveLimits bound what a chart archive may hold once inflated. */
export interface ArchiveLimits {
  /** All bytes of the inflated tar stream (headers included). */
  maxUnpackedBytes: number;
  /** Most entries. @defaultValue 5_000 */
  maxEntries: number;
}

/**
 * inspectChartArchive reads a downloaded chart archive (.tgz) as a stream, without writing
 * anything out: it stops as soon as the inflated bytes pass the limit (a gzip bomb never
 * inflates further), and refuses any entry that is not a plain file or folder under `<chart>/`
 * (no absolute path, no `..`, no link or device). It resolves when the archive holds
 * `<chart>/Chart.yaml` and nothing else is wrong. `what` names the chart in messages.
 */
export async function inspectChartArchive(file: string, chart: string, limits: ArchiveLimits, what: string): Promise<void> {
  let sawChartYaml = false;
  let entries = 0;
  const tar = extract();
  tar.on('entry', (header, body, next) => {
    // The archive's failure reaches the caller through the pipeline; an entry's copy of it is noise.
    body.on('error', () => undefined);
    entries += 1;
    const refusal = entries > limits.maxEntries ? `it holds more than ${limits.maxEntries} entries` : entryRefusal(header, chart);
    if (refusal) {
      next(new RenderFailure('ChartArchiveRefused', `${what}: the archive is refused: ${refusal}`));
      return;
    }
    if (header.type === 'file' && posix.normalize(header.name) === `${chart}/Chart.yaml`) sawChartYaml = true;
    body.on('end', () => next());
    body.resume();
  });
  try {
    await pipeline(createReadStream(file), createGunzip(), new ByteBudget(limits.maxUnpackedBytes, what), tar);
  } catch (error) {
    if (error instanceof RenderFailure) throw error;
    throw new RenderFailure('ChartArchiveRefused', `${what}: the archive is not a readable .tgz: ${messageOf(error)}`);
  }
  if (!sawChartYaml) throw new RenderFailure('ChartArchiveRefused', `${what}: the archive has no ${chart}/Chart.yaml`);
}

/** entryRefusal says why one tar entry may not be in a chart archive, or undefined when it may. */
export function entryRefusal(header: Pick<Header, 'name' | 'type'>, chart: string): string | undefined {
  const name = header.name;
  if (header.type !== 'file' && header.type !== 'directory') return `entry "${name}" is a ${header.type ?? 'entry of unknown type'}; only files and folders are allowed`;
  if (name.includes('\0') || name.includes('\\') || posix.isAbsolute(name)) return `entry "${name}" is not a relative path`;
  if (name.split('/').includes('..')) return `entry "${name}" leads out of the chart folder`;
  const normal = posix.normalize(name).replace(/\/+$/, '');
  if (normal !== chart && !normal.startsWith(`${chart}/`)) return `entry "${name}" is not inside the chart folder "${chart}/"`;
  return undefined;
}

/** ByteBudget passes bytes on until more than `max` went through, then fails the stream. */
class ByteBudget extends Transform {
  private seen = 0;

  constructor(private readonly max: number, private readonly what: string) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.byteLength;
    if (this.seen > this.max) callback(new RenderFailure('ChartTooLarge', `${this.what}: the archive inflates to more than ${this.max} bytes and is refused`));
    else callback(null, chunk);
  }
}
