import { mkdtemp, readFile, readdir, rm, writeFile, mkdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InputTree } from './materialise';
import { UnitCopies } from './unit-copies';

let workDir = '';
let copies: UnitCopies;
beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-unit-copies-'));
  copies = new UnitCopies(workDir, 2);
});
afterEach(async () => {
  await copies.close();
  await rm(workDir, { recursive: true, force: true });
});

/** treeOf makes an input tree of {path: text}; a file's blob id is its text, as Git's would follow it. */
function treeOf(files: Record<string, string>, folders: string[]): InputTree {
  return { folders, files: Object.entries(files).map(([path, text]) => ({ path, oid: `oid:${text}`, bytes: new TextEncoder().encode(text), mode: 0o644 })) };
}

/** listing is every file under a folder with its text, and every empty folder. */
async function listing(root: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name).slice(root.length + 1);
    if (entry.isFile()) found[path] = await readFile(join(root, path), 'utf8');
    else if (entry.isDirectory() && (await readdir(join(root, path))).length === 0) found[`${path}/`] = '';
  }
  return found;
}

describe('UnitCopies', () => {
  const first = treeOf({ 'app/kustomization.yaml': 'k1', 'base/a.yaml': 'a', 'base/b.yaml': 'b', 'base/sub/c.yaml': 'c' }, ['app', 'base']);

  it('writes the whole tree once, then only the files whose blob changed, and removes files gone from the tree', async () => {
    const one = (await copies.checkout('app', first))!;
    expect(one.rewritten).toBe(4);
    await one.release();
    const second = treeOf({ 'app/kustomization.yaml': 'k2', 'base/a.yaml': 'a', 'base/sub/c.yaml': 'c' }, ['app', 'base']);
    const two = (await copies.checkout('app', second))!;
    await two.release();
    expect(two.root).toBe(one.root);
    expect(two.rewritten).toBe(1);
    expect(await listing(two.root)).toEqual({ 'app/kustomization.yaml': 'k2', 'base/a.yaml': 'a', 'base/sub/c.yaml': 'c' });
    const third = treeOf({ 'app/kustomization.yaml': 'k2' }, ['app']);
    const three = (await copies.checkout('app', third))!;
    await three.release();
    expect(three.rewritten).toBe(0);
    expect(await listing(three.root)).toEqual({ 'app/kustomization.yaml': 'k2' });
  });

  it('removes what a renderer left in the tree and writes again a file changed behind its back', async () => {
    const one = (await copies.checkout('app', first))!;
    await writeFile(join(one.root, 'base/a.yaml'), 'changed by someone else');
    await mkdir(join(one.root, 'app/charts'));
    await writeFile(join(one.root, 'app/charts/left.yaml'), 'left');
    await symlink('/etc/passwd', join(one.root, 'base/link.yaml'));
    await writeFile(join(one.scratch, 'cache'), 'x');
    await one.release();
    const two = (await copies.checkout('app', first))!;
    await two.release();
    expect(two.rewritten).toBe(1);
    expect(await listing(two.root)).toEqual({ 'app/kustomization.yaml': 'k1', 'base/a.yaml': 'a', 'base/b.yaml': 'b', 'base/sub/c.yaml': 'c' });
    expect(await readdir(two.scratch)).toEqual([]);
  });

  it('lends a copy to one render at a time, and keeps at most its capacity', async () => {
    const held = (await copies.checkout('app', first))!;
    expect(await copies.checkout('app', first)).toBeUndefined();
    await held.release();
    for (const key of ['b', 'c']) await (await copies.checkout(key, first))!.release();
    expect((await readdir(workDir)).length).toBe(2);
    const again = (await copies.checkout('app', first))!;
    await again.release();
    expect(again.rewritten).toBe(4);
  });

  it('keeps a unit of many files the same way (checked with asynchronous calls)', async () => {
    const files = (changed: string) => Object.fromEntries(Array.from({ length: 70 }, (_, index) => [`base/f${index}.yaml`, index === 3 ? changed : `n${index}`]));
    await (await copies.checkout('big', treeOf(files('x'), ['base'])))!.release();
    const next = files('y');
    delete next['base/f5.yaml'];
    const two = (await copies.checkout('big', treeOf(next, ['base'])))!;
    await two.release();
    expect(two.rewritten).toBe(1);
    expect(await listing(two.root)).toEqual(next);
  });

  it('keeps at most its bytes: a unit past them is written afresh each time', async () => {
    const small = new UnitCopies(workDir, 10, 3);
    try {
      await (await small.checkout('app', first))!.release();
      const again = (await small.checkout('app', first))!;
      await again.release();
      expect(again.rewritten).toBe(4);
    } finally {
      await small.close();
    }
  });
});
