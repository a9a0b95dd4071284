import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { materialiseFolders, defaultInputLimits } from './materialise';
import type { RepoEntry, RepoReader } from './repo-reader';
import { RendererRegistry } from './renderer-registry';
import { RepoView, TreeCache } from './repo-view';

/** An in-memory object store: trees and blobs by id, one commit whose root is `root`. */
function reader(trees: Record<string, RepoEntry[]>, blobs: Record<string, string>): RepoReader {
  return {
    treeAt: async () => 'root',
    readTree: async (oid) => trees[oid] ?? [],
    readBlob: async (oid) => new TextEncoder().encode(blobs[oid] ?? ''),
  };
}
const blob = (path: string, oid: string): RepoEntry => ({ mode: '100644', path, oid, type: 'blob' });
const tree = (path: string, oid: string): RepoEntry => ({ mode: '040000', path, oid, type: 'tree' });

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function write(store: RepoReader, wanted: string[], limits = defaultInputLimits): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tidemark-materialise-'));
  folders.push(root);
  await materialiseFolders(new RepoView(store, 'rev', new TreeCache(), new RendererRegistry()), wanted, root, limits);
  return root;
}

describe('materialiseFolders', () => {
  const many = Array.from({ length: 12 }, (_, index) => blob(`f${index}.yaml`, `b${index}`));
  const store = reader(
    { root: [tree('app', 'app'), tree('base', 'base')], app: [blob('kustomization.yaml', 'k'), tree('nested', 'nested')], nested: [blob('x.yaml', 'x')], base: many },
    { k: 'resources: [../base]\n', x: 'x: 1\n', ...Object.fromEntries(many.map((entry, index) => [entry.oid, `n: ${index}\n`])) },
  );

  it('writes the unit and its inputs, nested folders included, at their repository paths', async () => {
    const root = await write(store, ['app', 'base']);
    expect(await readFile(join(root, 'app/kustomization.yaml'), 'utf8')).toBe('resources: [../base]\n');
    expect(await readFile(join(root, 'app/nested/x.yaml'), 'utf8')).toBe('x: 1\n');
    expect((await readdir(join(root, 'base'))).length).toBe(12);
  });

  it('refuses a folder past the file limit', async () => {
    await expect(write(store, ['base'], { ...defaultInputLimits, maxFiles: 10 })).rejects.toThrow(/more than 10 input files/);
    await expect(write(store, ['base'], { ...defaultInputLimits, maxFiles: 12 })).resolves.toBeDefined();
  });

  it('refuses a symlink anywhere in the inputs', async () => {
    const linked = reader({ root: [tree('app', 'app')], app: [blob('a.yaml', 'a'), { mode: '120000', path: 'escape', oid: 'l', type: 'blob' }] }, { a: 'a: 1\n', l: '/etc/passwd' });
    await expect(write(linked, ['app'])).rejects.toThrow('app/escape is a symbolic link');
  });

  it('writes nothing of a unit refused in a later folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tidemark-materialise-'));
    folders.push(root);
    const linked = reader({ root: [tree('app', 'app'), tree('base', 'base')], app: [blob('a.yaml', 'a')], base: [{ mode: '120000', path: 'escape', oid: 'l', type: 'blob' }] }, { a: 'a: 1\n', l: '/etc/passwd' });
    const view = new RepoView(linked, 'rev', new TreeCache(), new RendererRegistry());
    await expect(materialiseFolders(view, ['app', 'base'], root, defaultInputLimits)).rejects.toThrow('base/escape is a symbolic link');
    expect(await readdir(root)).toEqual([]);
  });
});
