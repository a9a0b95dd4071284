import { posix } from 'node:path';
import { Readable, Transform, type TransformCallback, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Header } from 'tar-stream';
import { OciSourceError } from './oci-source-error';

/** ExtractLimits bound what one layer may hold once inflated. */
export interface ExtractLimits {
  /** Largest single file. */
  maxFileBytes: number;
  /** All bytes of the inflated tar stream, headers included. */
  maxInflatedBytes: number;
  /** Most entries (files and folders). @defaultValue 10_000 */
  maxEntries?: number;
}

/** ArtifactFile is one regular file of an artifact, at its path from the artifact's root. */
export interface ArtifactFile {
  path: string;
  data: Buffer;
  executable: boolean;
}

/**
 * extractLayer reads a layer (a tar, gzip-compressed or not) into memory as a list of files. It
 * streams, so an inflation bomb stops as soon as the inflated bytes pass the limit; any entry that
 * is not a plain file or folder (a symlink, hard link, device, FIFO), any absolute path or `..`,
 * and any path spelled twice (`a/b` and `./a/b`) refuses the whole layer: nothing of it is used.
 */
export async function extractLayer(layer: Buffer, limits: ExtractLimits, what: string): Promise<ArtifactFile[]> {
  const files = new Map<string, ArtifactFile>();
  const folders = new Set<string>();
  const maxEntries = limits.maxEntries ?? 10_000;
  let entries = 0;
  const tar = extract();
  tar.on('entry', (header, body, next) => {
    body.on('error', () => undefined);
    entries += 1;
    const path = entries > maxEntries ? { refusal: `it holds more than ${maxEntries} entries` } : entryPath(header);
    const refusal = typeof path === 'object' ? path.refusal : clash(path, header, files, folders);
    if (refusal !== undefined || typeof path !== 'string') {
      next(new OciSourceError('OciLayerRefused', `${what}: the layer is refused: ${refusal ?? 'bad entry'}`));
      return;
    }
    if (header.type === 'directory') {
      if (path !== '') folders.add(path);
      body.on('end', () => next());
      body.resume();
      return;
    }
    if ((header.size ?? 0) > limits.maxFileBytes) {
      next(new OciSourceError('OciTooLarge', `${what}: the layer is refused: ${path} is ${header.size} bytes, more than the largest file allowed (${limits.maxFileBytes})`));
      return;
    }
    const chunks: Buffer[] = [];
    body.on('data', (chunk: unknown) => {
      chunks.push(chunk as Buffer);
    });
    body.on('end', () => {
      files.set(path, { path, data: Buffer.concat(chunks), executable: ((header.mode ?? 0) & 0o111) !== 0 });
      next();
    });
  });
  const gzipped = layer.length >= 2 && layer[0] === 0x1f && layer[1] === 0x8b;
  const stages: Array<NodeJS.ReadableStream | NodeJS.WritableStream | Transform | Writable> = [Readable.from([layer])];
  if (gzipped) stages.push(createGunzip());
  stages.push(new ByteBudget(limits.maxInflatedBytes, what), tar);
  try {
    await (pipeline as (...streams: unknown[]) => Promise<void>)(...stages);
  } catch (error) {
    if (error instanceof OciSourceError) throw error;
    throw new OciSourceError('OciLayerRefused', `${what}: the layer is not a readable ${gzipped ? 'tar.gz' : 'tar'}: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`);
  }
  return [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** entryPath is an entry's normal path ('' for the root folder), or why it is refused. */
function entryPath(header: Pick<Header, 'name' | 'type'>): string | { refusal: string } {
  const name = header.name;
  const shown = JSON.stringify(name.slice(0, 120));
  if (header.type !== 'file' && header.type !== 'directory') return { refusal: `entry ${shown} is a ${header.type ?? 'entry of unknown type'}; only files and folders are allowed` };
  if (name.includes('\0') || name.includes('\\') || posix.isAbsolute(name)) return { refusal: `entry ${shown} is not a relative path` };
  if (name.split('/').includes('..')) return { refusal: `entry ${shown} leads out of the artifact` };
  const normal = posix.normalize(name).replace(/\/+$/, '');
  return normal === '.' ? '' : normal;
}

/** clash says why a path may not be added: a second spelling of a file, or a file where a folder is (or the reverse). */
function clash(path: string, header: Pick<Header, 'type'>, files: Map<string, ArtifactFile>, folders: Set<string>): string | undefined {
  if (header.type === 'file' && (files.has(path) || folders.has(path))) return `the path ${JSON.stringify(path)} appears twice (as two entries or spelled two ways)`;
  if (header.type === 'directory' && files.has(path)) return `the path ${JSON.stringify(path)} is both a file and a folder`;
  const parts = path.split('/');
  for (let depth = 1; depth < parts.length; depth += 1) {
    if (files.has(parts.slice(0, depth).join('/'))) return `the path ${JSON.stringify(path)} lies under a file`;
  }
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
    if (this.seen > this.max) callback(new OciSourceError('OciTooLarge', `${this.what}: the layer inflates to more than ${this.max} bytes and is refused`));
    else callback(null, chunk);
  }
}
