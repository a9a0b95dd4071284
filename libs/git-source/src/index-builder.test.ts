import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoundedCache } from './bounded-cache';
import { GitStore } from './git-store';
import { IndexBuilder } from './index-builder';
import { defaultLoadLimits } from './load-limits';
import type { ManifestFile } from './load-manifest-file';

let work: string | undefined;
afterEach(async () => {
  if (work) await rm(work, { recursive: true, force: true });
  work = undefined;
});

/** commitFiles commits the files to a fresh repository made with the git CLI and returns its gitdir and head. */
async function commitFiles(files: Record<string, string>): Promise<{ gitdir: string; head: string }> {
  work = await mkdtemp(join(tmpdir(), 'tidemark-index-builder-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', work!, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
  git('init', '--quiet', '--initial-branch=main');
  for (const [path, text] of Object.entries(files)) await writeFile(join(work, path), text);
  git('add', '.');
  git('commit', '--quiet', '-m', 'files');
  return { gitdir: join(work, '.git'), head: git('rev-parse', 'HEAD') };
}

/** configMap is a ConfigMap of about `bytes` bytes. */
const configMap = (name: string, bytes: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  v: "${'a'.repeat(bytes)}"\n`;

function builder(gitdir: string, parsedBlobs: BoundedCache<string, ManifestFile>): IndexBuilder {
  const store = new GitStore(gitdir, 'https://git.example/unused.git', {});
  return new IndexBuilder({ store, path: '.', ignoreFile: '.tidemarkignore', limits: defaultLoadLimits, parsedBlobs, source: 'budgeted', maxRevisionBytes: 1024 * 1024 });
}

describe('IndexBuilder byte budget', () => {
  it('refuses a revision past the budget from the files\' sizes, naming the file, having parsed none of them', async () => {
    const { gitdir, head } = await commitFiles({ 'a.yaml': configMap('a', 400_000), 'b.yaml': configMap('b', 400_000), 'c.yaml': configMap('c', 400_000) });
    const parsedBlobs = new BoundedCache<string, ManifestFile>(100);
    await expect(builder(gitdir, parsedBlobs).build(head)).rejects.toMatchObject({
      code: 'SourceTooLarge',
      message: expect.stringMatching(/holds more than 1 MiB of manifests \(the budget\), passed at c\.yaml/),
    });
    expect(parsedBlobs.size).toBe(0);
  });

  it('parses a revision within the budget and counts its bytes', async () => {
    const { gitdir, head } = await commitFiles({ 'a.yaml': configMap('a', 300), 'b.yaml': configMap('b', 300) });
    const parsedBlobs = new BoundedCache<string, ManifestFile>(100);
    const { built } = await builder(gitdir, parsedBlobs).build(head);
    expect(parsedBlobs.size).toBe(2);
    expect([...built.index.paths()].sort()).toEqual(['a.yaml', 'b.yaml']);
    expect(built.totalBytes).toBe(configMap('a', 300).length + configMap('b', 300).length);
  });
});
