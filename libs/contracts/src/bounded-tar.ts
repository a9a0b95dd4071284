import { posix } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Header } from 'tar-stream';

/** TarLimits bound what one archive may hold once inflated. */
export interface TarLimits {
  /** All bytes of the inflated tar stream, headers included. */
  maxInflatedBytes: number;
  /** Most entries (files and folders). */
  maxEntries: number;
  /** Largest single file; none when unset. */
  maxFileBytes?: number;
}

/** TarEntry is one entry that passed the walk's own checks: a file or folder at a normal relative path. */
export interface TarEntry {
  /** The normal path, without a trailing slash; '' for the archive's root folder. */
  path: string;
  type: 'file' | 'directory';
  size: number;
  mode: number;
}

/** TarVisitor is what the caller adds to the walk: its own refusals, and what it keeps of each file. */
export interface TarVisitor {
  /** Why this entry refuses the whole archive, or undefined to go on. */
  refuse?(entry: TarEntry): string | undefined;
  /** A file's bytes; files are only read when this is given. */
  file?(entry: TarEntry, data: Buffer): void;
}

/** Why a walk stopped: a refused entry, too many bytes, or a stream that is no tar at all. */
export type TarFailureKind = 'refused' | 'tooLarge' | 'unreadable';

/**
 * TarWalkError says why an archive was refused. Its message is a clause that names the entry and
 * never holds its bytes; describe() puts it in a sentence about the caller's archive.
 */
export class TarWalkError extends Error {
  /** The clause stands after the archive's name ("inflates to …") instead of after "is refused:". */
  private readonly standalone: boolean;

  constructor(readonly kind: TarFailureKind, clause: string, options: { standalone?: boolean } = {}) {
    super(clause);
    this.name = 'TarWalkError';
    this.standalone = options.standalone ?? false;
  }

  /** describe says it of one archive: `<what>: the <noun> is refused: <clause>`, or `<what>: the <noun> <clause>`. */
  describe(what: string, noun: string): string {
    return this.standalone ? `${what}: the ${noun} ${this.message}` : `${what}: the ${noun} is refused: ${this.message}`;
  }
}

/**
 * walkTar reads a tar (gzip-compressed when `gzip`) as a stream and hands each entry to the
 * visitor. It stops as soon as the inflated bytes pass the limit, so a gzip bomb never inflates
 * further; and it refuses the whole archive for an entry that is not a plain file or folder (a
 * symlink, hard link, device, FIFO), an absolute path, a path with `..`, NUL or a backslash, more
 * entries than allowed, or a file over the size limit. `inside` names the archive's root in the
 * message for a path that leads out of it ("the artifact", "the chart folder").
 */
export async function walkTar(source: Readable, options: TarLimits & { gzip: boolean; inside: string }, visitor: TarVisitor = {}): Promise<void> {
  let entries = 0;
  const tar = extract();
  tar.on('entry', (header, body, next) => {
    // The archive's failure reaches the caller through the pipeline; an entry's copy of it is noise.
    body.on('error', () => undefined);
    entries += 1;
    const entry = entries > options.maxEntries ? { refusal: `it holds more than ${options.maxEntries} entries` } : tarEntryOf(header, options.inside);
    const refusal = 'refusal' in entry ? entry.refusal : visitor.refuse?.(entry);
    if (refusal !== undefined || 'refusal' in entry) {
      next(new TarWalkError('refused', refusal ?? 'bad entry'));
      return;
    }
    if (options.maxFileBytes !== undefined && entry.size > options.maxFileBytes) {
      next(new TarWalkError('tooLarge', `${entry.path} is ${entry.size} bytes, more than the largest file allowed (${options.maxFileBytes})`));
      return;
    }
    if (entry.type === 'directory' || !visitor.file) {
      body.on('end', () => next());
      body.resume();
      return;
    }
    const chunks: Buffer[] = [];
    body.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
    body.on('end', () => {
      visitor.file!(entry, Buffer.concat(chunks));
      next();
    });
  });
  const stages: Array<NodeJS.ReadableStream | NodeJS.WritableStream> = [source];
  if (options.gzip) stages.push(createGunzip());
  stages.push(new ByteBudget(options.maxInflatedBytes), tar);
  try {
    await (pipeline as (...streams: unknown[]) => Promise<void>)(...stages);
  } catch (error) {
    if (error instanceof TarWalkError) throw error;
    throw new TarWalkError('unreadable', `is not a readable ${options.gzip ? '.tgz' : 'tar'}: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`, { standalone: true });
  }
}

/** tarEntryOf is an entry's normal form, or why it is refused. */
export function tarEntryOf(header: Pick<Header, 'name' | 'type'> & Partial<Pick<Header, 'size' | 'mode'>>, inside: string): TarEntry | { refusal: string } {
  const name = header.name;
  const shown = JSON.stringify(name.slice(0, 120));
  if (header.type !== 'file' && header.type !== 'directory') return { refusal: `entry ${shown} is a ${header.type ?? 'entry of unknown type'}; only files and folders are allowed` };
  if (name.includes('\0') || name.includes('\\') || posix.isAbsolute(name)) return { refusal: `entry ${shown} is not a relative path` };
  if (name.split('/').includes('..')) return { refusal: `entry ${shown} leads out of ${inside}` };
  const normal = posix.normalize(name).replace(/\/+$/, '');
  return { path: normal === '.' ? '' : normal, type: header.type, size: header.size ?? 0, mode: header.mode ?? 0 };
}

/** ByteBudget passes bytes on until more than `max` went through, then fails the stream. */
class ByteBudget extends Transform {
  private seen = 0;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.byteLength;
    if (this.seen > this.max) callback(new TarWalkError('tooLarge', `inflates to more than ${this.max} bytes and is refused`, { standalone: true }));
    else callback(null, chunk);
  }
}
