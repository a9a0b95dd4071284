import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack, type Header } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryRefusal, inspectChartArchive } from './chart-archive';

let dir: string;
const limits = { maxUnpackedBytes: 256 * 1024, maxEntries: 20 };

/** tgz writes a gzipped tar of the given entries, as any tool could. */
async function tgz(name: string, entries: Array<{ header: Partial<Header> & { name: string }; body?: string | Buffer }>): Promise<string> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (chunk) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const entry of entries) tar.entry(entry.header, entry.body ?? '');
  tar.finalize();
  await ended;
  const path = join(dir, name);
  await writeFile(path, gzipSync(Buffer.concat(chunks)));
  return path;
}

const chartYaml = { header: { name: 'web/Chart.yaml' }, body: 'apiVersion: v2\nname: web\nversion: 1.0.0\n' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidemark-chart-archive-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('inspectChartArchive', () => {
  it('accepts a chart folder with files and folders', async () => {
    const file = await tgz('ok.tgz', [{ header: { name: 'web/', type: 'directory' } }, chartYaml, { header: { name: 'web/templates/cm.yaml' }, body: 'kind: ConfigMap\n' }]);
    await expect(inspectChartArchive(file, 'web', limits, 'web 1.0.0')).resolves.toBeUndefined();
  });

  it('refuses an entry that climbs out with ../', async () => {
    const file = await tgz('climb.tgz', [chartYaml, { header: { name: 'web/../../etc/cron.d/evil' }, body: 'x' }]);
    await expect(inspectChartArchive(file, 'web', limits, 'web 1.0.0')).rejects.toMatchObject({ code: 'ChartArchiveRefused', message: expect.stringContaining('"web/../../etc/cron.d/evil" leads out of the chart folder') });
  });

  it('refuses absolute paths, other top folders, symlinks and hard links', async () => {
    const cases: Array<[Partial<Header> & { name: string }, string]> = [
      [{ name: '/etc/passwd' }, 'is not a relative path'],
      [{ name: 'other/Chart.yaml' }, 'is not inside the chart folder "web/"'],
      [{ name: 'web/templates/link.yaml', type: 'symlink', linkname: '/etc/shadow' }, 'is a symlink'],
      [{ name: 'web/templates/hard.yaml', type: 'link', linkname: 'web/Chart.yaml' }, 'is a link'],
    ];
    for (const [index, [header, reason]] of cases.entries()) {
      const file = await tgz(`bad-${index}.tgz`, [chartYaml, { header }]);
      await expect(inspectChartArchive(file, 'web', limits, 'web 1.0.0'), header.name).rejects.toMatchObject({ code: 'ChartArchiveRefused', message: expect.stringContaining(reason) });
    }
  });

  it('stops inflating a bomb at the limit', async () => {
    const file = await tgz('bomb.tgz', [chartYaml, { header: { name: 'web/values.yaml' }, body: Buffer.alloc(4 * 1024 * 1024) }]);
    await expect(inspectChartArchive(file, 'web', limits, 'web 1.0.0')).rejects.toMatchObject({ code: 'ChartTooLarge', message: 'web 1.0.0: the archive inflates to more than 262144 bytes and is refused' });
  });

  it('refuses an archive without Chart.yaml, too many entries, or no gzip at all', async () => {
    await expect(inspectChartArchive(await tgz('empty.tgz', [{ header: { name: 'web/values.yaml' } }]), 'web', limits, 'w')).rejects.toMatchObject({ message: 'w: the archive has no web/Chart.yaml' });
    const many = Array.from({ length: 21 }, (_, index) => ({ header: { name: `web/f${index}` } }));
    await expect(inspectChartArchive(await tgz('many.tgz', [chartYaml, ...many]), 'web', limits, 'w')).rejects.toMatchObject({ message: expect.stringContaining('more than 20 entries') });
    const plain = join(dir, 'plain.tgz');
    await writeFile(plain, 'not gzip');
    await expect(inspectChartArchive(plain, 'web', limits, 'w')).rejects.toMatchObject({ code: 'ChartArchiveRefused', message: expect.stringContaining('not a readable .tgz') });
  });

  it('entryRefusal allows the chart folder itself', () => {
    expect(entryRefusal({ name: 'web/', type: 'directory' }, 'web')).toBeUndefined();
    expect(entryRefusal({ name: 'webby/Chart.yaml', type: 'file' }, 'web')).toContain('not inside the chart folder');
  });
});
