import { inflateSync } from 'node:zlib';
import { TerminalError } from '@tidemark/contracts';

/** GitSizeLimits bound what one fetch and one revision of a source may cost in memory. */
export interface GitSizeLimits {
  /** Largest object (file, tree) once inflated. A pack announcing a bigger one is refused before it is inflated. @defaultValue 16 MiB */
  maxObjectBytes: number;
  /** Most bytes one fetch may bring, packed and once inflated. @defaultValue 64 MiB */
  maxFetchBytes: number;
  /**
   * Most bytes of manifest files (the files the source reads) one revision may hold. Parsed YAML
   * costs several times its size in memory, so this is the budget that bounds the reconciler's
   * memory per source. @defaultValue 16 MiB
   */
  maxRevisionBytes: number;
}

export const defaultGitSizeLimits: Readonly<GitSizeLimits> = Object.freeze({
  maxObjectBytes: 16 * 1024 * 1024,
  maxFetchBytes: 64 * 1024 * 1024,
  maxRevisionBytes: 16 * 1024 * 1024,
});

const objectTypes: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag', 6: 'delta', 7: 'delta' };
const ofsDelta = 6;
const refDelta = 7;

/** sourceTooLarge is the terminal error a source gets when Git holds more than its limits allow. */
export function sourceTooLarge(source: string, what: string): TerminalError {
  return new TerminalError('SourceTooLarge', `Source ${source}: ${what}. Nothing of this revision is read; the last revision stays applied. Remove the data from the branch; a source's own limits may only lower the reconciler's, never raise them.`);
}

/**
 * PackSizeGuard watches an upload-pack response as it streams in (side-band pkt-lines) and
 * refuses it before isomorphic-git inflates and indexes the pack: a pack whose compressed size
 * passes the budget is cut off while downloading; at the end, every object's size is read from
 * its pack header (a delta's from the target size inside it) before it is inflated, so a 256 MiB
 * blob of zeros in a 1 MB push is refused having cost a few bytes of header.
 */
export class PackSizeGuard {
  private pending = Buffer.alloc(0);
  private readonly pack: Buffer[] = [];
  private packBytes = 0;
  /** The refusal, kept so the caller can rethrow it whatever isomorphic-git wraps it in. */
  refused: TerminalError | undefined;

  constructor(private readonly limits: GitSizeLimits, private readonly source: string) {}

  /** observe takes the next chunk of the response body; it throws once the response is refused. */
  observe(chunk: Uint8Array): void {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (this.pending.length < 4) return;
      const length = Number.parseInt(this.pending.toString('latin1', 0, 4), 16);
      if (!Number.isInteger(length) || length < 4) {
        this.pending = this.pending.subarray(length === 0 || length === 1 ? 4 : this.pending.length);
        continue;
      }
      if (this.pending.length < length) return;
      const payload = this.pending.subarray(4, length);
      this.pending = this.pending.subarray(length);
      if (payload[0] === 1) this.addPackBytes(payload.subarray(1));
    }
  }

  /** finish checks every object of the received pack, before anything inflates it. */
  finish(): void {
    if (this.pack.length === 0) return;
    this.check(() => checkPack(Buffer.concat(this.pack), this.limits));
  }

  private addPackBytes(bytes: Buffer): void {
    this.packBytes += bytes.length;
    if (this.packBytes > this.limits.maxFetchBytes) {
      this.refuse(`the fetch brought more than ${mib(this.limits.maxFetchBytes)} of packed objects, more than the source's budget`);
    }
    this.pack.push(Buffer.from(bytes));
  }

  private check(run: () => void): void {
    try {
      run();
    } catch (error) {
      // Anything else (a truncated pack) isomorphic-git reports itself when it reads the pack.
      if (error instanceof PackLimitExceeded) this.refuse(error.message);
    }
  }

  private refuse(what: string): never {
    this.refused = sourceTooLarge(this.source, what);
    throw this.refused;
  }
}

class PackLimitExceeded extends Error {}

/** checkPack walks a pack's object headers; it inflates only objects already known to fit. */
function checkPack(pack: Buffer, limits: GitSizeLimits): void {
  if (pack.length < 12 || pack.toString('latin1', 0, 4) !== 'PACK') return;
  const count = pack.readUInt32BE(8);
  let offset = 12;
  let total = 0;
  for (let index = 0; index < count && offset < pack.length; index += 1) {
    const header = readObjectHeader(pack, offset);
    if (header.size > limits.maxObjectBytes) throw tooBig(header.type, header.size, limits);
    const { buffer, consumed } = inflateAt(pack, header.dataStart, header.size);
    const size = header.type === ofsDelta || header.type === refDelta ? deltaTargetSize(buffer) : header.size;
    if (size > limits.maxObjectBytes) throw tooBig(header.type, size, limits);
    total += size;
    if (total > limits.maxFetchBytes) {
      throw new PackLimitExceeded(`the fetch holds more than ${mib(limits.maxFetchBytes)} of objects once inflated, more than the source's budget`);
    }
    offset = header.dataStart + consumed;
  }
}

function tooBig(type: number, size: number, limits: GitSizeLimits): PackLimitExceeded {
  return new PackLimitExceeded(`a ${objectTypes[type] ?? 'Git object'} of ${mib(size)} was pushed, more than the limit of ${mib(limits.maxObjectBytes)} per object`);
}

function readObjectHeader(pack: Buffer, start: number): { type: number; size: number; dataStart: number } {
  let offset = start;
  let byte = pack[offset++] ?? 0;
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    byte = pack[offset++] ?? 0;
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  if (type === ofsDelta) {
    while ((pack[offset++] ?? 0) & 0x80);
  } else if (type === refDelta) {
    offset += 20;
  }
  return { type, size, dataStart: offset };
}

/** inflateAt inflates one zlib stream, never past the size its header announced. */
function inflateAt(pack: Buffer, start: number, size: number): { buffer: Buffer; consumed: number } {
  try {
    const { buffer, engine } = inflateSync(pack.subarray(start), { info: true, maxOutputLength: Math.max(size, 1) }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    return { buffer, consumed: engine.bytesWritten };
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PackLimitExceeded(`an object inflates to more than the ${mib(size)} its header announced`);
    }
    throw error;
  }
}

/** deltaTargetSize reads a delta's second varint: the size of the object it produces. */
function deltaTargetSize(delta: Buffer): number {
  let offset = 0;
  while ((delta[offset++] ?? 0) & 0x80);
  let size = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = delta[offset++] ?? 0;
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return size;
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}
