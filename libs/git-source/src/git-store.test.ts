import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitStore } from './git-store';

let work: string | undefined;
afterEach(async () => {
  if (work) await rm(work, { recursive: true, force: true });
  work = undefined;
});

/** repository commits two folders with the git CLI and returns the gitdir, head and the trees git names. */
async function repository(): Promise<{ gitdir: string; head: string; apps: string; unit: string }> {
  work = await mkdtemp(join(tmpdir(), 'tidemark-git-store-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', work!, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
  git('init', '--quiet', '--initial-branch=main');
  await mkdir(join(work, 'apps', 'web'), { recursive: true });
  await writeFile(join(work, 'apps', 'web', 'kustomization.yaml'), 'resources: [service.yaml]\n');
  await writeFile(join(work, 'apps', 'web', 'service.yaml'), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n');
  git('add', '.');
  git('commit', '--quiet', '-m', 'files');
  return { gitdir: join(work, '.git'), head: git('rev-parse', 'HEAD'), apps: git('rev-parse', 'HEAD:apps'), unit: git('rev-parse', 'HEAD:apps/web') };
}

describe('GitStore reads', () => {
  it('parses each tree once: the tree diff and the render planner share the entries', async () => {
    const { gitdir, head, apps, unit } = await repository();
    const store = new GitStore(gitdir, 'http://127.0.0.1:9/unused.git', {});
    expect(await store.treeAt(head, 'apps/web')).toBe(unit);
    const first = await store.readTree(apps);
    expect(first.map((entry) => [entry.path, entry.type, entry.oid])).toEqual([['web', 'tree', unit]]);
    // The same array, not a second parse of the same object.
    expect(await store.readTree(apps)).toBe(first);
    expect(await store.treeAt(head, 'apps')).toBe(apps);
  });

  it('forgets what it parsed when the object cache is reset', async () => {
    const { gitdir, apps } = await repository();
    const store = new GitStore(gitdir, 'http://127.0.0.1:9/unused.git', {});
    await store.readTree(apps);
    await store.reset();
    await expect(store.readTree(apps)).rejects.toThrow();
    await expect(store.readTree('0'.repeat(40))).rejects.toThrow();
  });
});
