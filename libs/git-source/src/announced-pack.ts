import * as fs from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import git, { type HttpClient } from 'isomorphic-git';
import { TransientError } from '@tidemark/contracts';
import { guardedHttp } from './guarded-http';
import type { PackSizeGuard } from './pack-size-guard';

/** AnnouncedPackRequest asks a Git server for the objects of one commit that `have` lacks. */
export interface AnnouncedPackRequest {
  http: HttpClient;
  /** The repository's URL (the one discovery uses); the POST goes to `${url}/git-upload-pack`. */
  url: string;
  headers: Readonly<Record<string, string>>;
  want: string;
  have: string;
  /** Reads the pack as it streams and refuses one over the source's limits. */
  guard: PackSizeGuard;
}

// Bytes of everything but pack data (ACK/NAK lines, errors) an answer may carry; no-progress is asked for.
const maxControlBytes = 64 * 1024;

/**
 * requestAnnouncedPack sends one stateless upload-pack request (protocol v0, the way
 * `git fetch` over smart HTTP sends its second request): `want` the announced commit, `have`
 * our last one, `done`. It needs no ref discovery first, so it can run beside the discovery
 * that decides whether the pack is kept. A server gives only objects reachable from its refs.
 * Returns the pack (not thin: every delta base is in it or in `have`), not yet written anywhere.
 */
export async function requestAnnouncedPack(request: AnnouncedPackRequest): Promise<Buffer> {
  const { want, have, guard } = request;
  const lines = [pktLine(`want ${want} ofs-delta side-band-64k no-progress agent=tidemark\n`), '0000', pktLine(`have ${have}\n`), pktLine('done\n')];
  const response = await guardedHttp(guard, request.http).request({
    url: `${request.url.replace(/\/+$/, '')}/git-upload-pack`,
    method: 'POST',
    headers: { ...request.headers, 'content-type': 'application/x-git-upload-pack-request', accept: 'application/x-git-upload-pack-result' },
    body: once(Buffer.from(lines.join(''), 'latin1')),
  });
  if (response.statusCode !== 200 || !response.body) throw new TransientError('GitFetchFailed', `upload-pack answered HTTP ${response.statusCode}`);
  const demux = new SideBandReader();
  for await (const chunk of response.body) demux.take(chunk);
  return demux.pack();
}

/**
 * writeAnnouncedPack adds a received pack to a bare repository's objects as isomorphic-git's own
 * fetch does (pack, then its index: a reader finds a pack by its index). Returns its object count.
 */
export async function writeAnnouncedPack(gitdir: string, pack: Buffer, cache: object): Promise<number> {
  const name = `objects/pack/pack-${pack.subarray(pack.length - 20).toString('hex')}.pack`;
  await writeFile(join(gitdir, name), pack);
  try {
    await git.indexPack({ fs, dir: gitdir, gitdir, filepath: name, cache });
  } catch (error) {
    await rm(join(gitdir, name), { force: true });
    throw error;
  }
  return pack.readUInt32BE(8);
}

async function* once(body: Uint8Array): AsyncIterableIterator<Uint8Array> {
  yield body;
}

function pktLine(text: string): string {
  return (text.length + 4).toString(16).padStart(4, '0') + text;
}

/** SideBandReader splits an upload-pack answer into pkt-lines and keeps side band 1, the pack. */
class SideBandReader {
  private pending = Buffer.alloc(0);
  private readonly chunks: Buffer[] = [];
  private controlBytes = 0;

  take(chunk: Uint8Array): void {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 4) {
      const length = Number.parseInt(this.pending.toString('latin1', 0, 4), 16);
      if (!Number.isInteger(length) || length < 0 || length === 1 || length === 2 || length === 3) throw answerError('a malformed pkt-line');
      if (length === 0) {
        this.pending = this.pending.subarray(4);
        continue;
      }
      if (this.pending.length < length) return;
      this.line(this.pending.subarray(4, length));
      this.pending = this.pending.subarray(length);
    }
  }

  pack(): Buffer {
    const pack = Buffer.concat(this.chunks);
    if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') throw answerError('no pack');
    return pack;
  }

  private line(payload: Buffer): void {
    const band = payload[0];
    if (band === 1) {
      this.chunks.push(Buffer.from(payload.subarray(1)));
      return;
    }
    this.controlBytes += payload.length;
    if (this.controlBytes > maxControlBytes) throw answerError('more than 64 KiB besides the pack');
    // Band 3 and ERR are the server refusing (a commit not on its refs); the text is its own, not quoted.
    if (band === 3 || payload.toString('latin1', 0, 4) === 'ERR ') throw answerError('an error');
  }
}

function answerError(what: string): TransientError {
  return new TransientError('GitFetchFailed', `upload-pack answered with ${what}`);
}
