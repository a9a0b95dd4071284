import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { pack, type Header } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { TarWalkError, walkTar, type TarEntry } from './bounded-tar';

type Entry = { header: Partial<Header> & { name: string }; body?: string | Buffer };

/** tarOf packs entries as any tool could. */
async function tarOf(entries: Entry[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (chunk: unknown) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const entry of entries) tar.entry(entry.header, entry.body ?? '');
  tar.finalize();
  await ended;
  return Buffer.concat(chunks);
}

const limits = { maxInflatedBytes: 64 * 1024, maxEntries: 5, maxFileBytes: 1024, inside: 'the artifact' };

/** walked walks a tar and returns what it read, or the refusal in a sentence. */
async function walked(archive: Buffer, gzip = false, refuse?: (entry: TarEntry) => string | undefined, maxFileBytes = limits.maxFileBytes): Promise<{ files: Record<string, string>; seen: string[] } | { error: string; kind: string }> {
  const files: Record<string, string> = {};
  const seen: string[] = [];
  try {
    await walkTar(Readable.from([gzip ? gzipSync(archive) : archive]), { ...limits, maxFileBytes, gzip }, {
      refuse: (entry) => (seen.push(`${entry.type} ${entry.path}`), refuse?.(entry)),
      file: (entry, data) => void (files[entry.path] = data.toString()),
    });
    return { files, seen };
  } catch (error) {
    if (!(error instanceof TarWalkError)) throw error;
    return { error: error.describe('oci://x', 'layer'), kind: error.kind };
  }
}

describe('walkTar', () => {
  it('reads files and folders at their normal paths, gzipped or not', async () => {
    const archive = await tarOf([{ header: { name: './', type: 'directory' } }, { header: { name: 'a/', type: 'directory' } }, { header: { name: './a/b.yaml' }, body: 'b: 1\n' }]);
    for (const gzip of [false, true]) {
      expect(await walked(archive, gzip)).toEqual({ files: { 'a/b.yaml': 'b: 1\n' }, seen: ['directory ', 'directory a', 'file a/b.yaml'] });
    }
  });

  it.each([
    ['a symlink', { name: 'link.yaml', type: 'symlink', linkname: '/etc/passwd' }, 'oci://x: the layer is refused: entry "link.yaml" is a symlink; only files and folders are allowed'],
    ['a hard link', { name: 'hard.yaml', type: 'link', linkname: 'a.yaml' }, 'oci://x: the layer is refused: entry "hard.yaml" is a link; only files and folders are allowed'],
    ['a device', { name: 'dev', type: 'character-device' }, 'oci://x: the layer is refused: entry "dev" is a character-device; only files and folders are allowed'],
    ['an absolute path', { name: '/etc/cron.d/x' }, 'oci://x: the layer is refused: entry "/etc/cron.d/x" is not a relative path'],
    ['a backslash', { name: 'a\\..\\x' }, 'oci://x: the layer is refused: entry "a\\\\..\\\\x" is not a relative path'],
    ['a way out', { name: 'a/../../escape.yaml' }, 'oci://x: the layer is refused: entry "a/../../escape.yaml" leads out of the artifact'],
    ['a file over the size limit', { name: 'big.yaml', size: 2048 }, 'oci://x: the layer is refused: big.yaml is 2048 bytes, more than the largest file allowed (1024)'],
  ] as [string, Partial<Header> & { name: string }, string][])('refuses the whole archive for %s', async (_what, header, message) => {
    const body = header.size ? Buffer.alloc(header.size) : undefined;
    const archive = await tarOf([{ header: { name: 'first.yaml' }, body: 'x' }, { header, body }]);
    expect(await walked(archive)).toMatchObject({ error: message });
  });

  it('refuses more entries than allowed', async () => {
    const archive = await tarOf(Array.from({ length: 6 }, (_, index) => ({ header: { name: `f${index}` }, body: 'x' })));
    expect(await walked(archive)).toEqual({ error: 'oci://x: the layer is refused: it holds more than 5 entries', kind: 'refused' });
  });

  it('stops a gzip bomb at the inflation limit, before reading further', async () => {
    const archive = await tarOf(Array.from({ length: 3 }, (_, index) => ({ header: { name: `zeros${index}` }, body: Buffer.alloc(30 * 1024) })));
    expect(await walked(archive, true, undefined, 1024 * 1024)).toEqual({ error: 'oci://x: the layer inflates to more than 65536 bytes and is refused', kind: 'tooLarge' });
  });

  it('refuses the archive when the visitor refuses an entry, naming why', async () => {
    const archive = await tarOf([{ header: { name: 'ok.yaml' }, body: 'x' }, { header: { name: 'other/x.yaml' }, body: 'y' }]);
    expect(await walked(archive, false, (entry) => (entry.path.startsWith('other/') ? 'entry "other/x.yaml" is not inside the chart folder' : undefined))).toEqual({ error: 'oci://x: the layer is refused: entry "other/x.yaml" is not inside the chart folder', kind: 'refused' });
  });

  it('says a stream that is no tar cannot be read', async () => {
    expect(await walked(Buffer.from('not a tar at all, but long enough to be looked at'.repeat(20)), true)).toMatchObject({ kind: 'unreadable', error: expect.stringMatching(/^oci:\/\/x: the layer is not a readable \.tgz: /) });
  });
});
