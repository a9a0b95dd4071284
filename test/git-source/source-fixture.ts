import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { GitSource, parseSourceSpec, type GitSourceOptions, type LoadLimits, type SourceAuth, type SourceRef, type SourceSpec, type UnitRendering } from '@tidemark/git-source';

/** SpecInput is the part of a source's config a test chooses; the rest gets defaults. */
export interface SpecInput {
  url: string;
  ref?: SourceRef;
  path?: string;
  auth?: SourceAuth;
}

/** configMap renders a ConfigMap document; `value` makes a change visible. */
export function configMap(name: string, value = '1', namespace?: string): string {
  const ns = namespace ? `\n  namespace: ${namespace}` : '';
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}${ns}\ndata:\n  value: "${value}"\n`;
}

/** SourceFixture opens GitSources on fresh cache folders and removes them all at the end. */
export class SourceFixture {
  private readonly opened: Array<{ source: GitSource; dir: string }> = [];

  async open(spec: SpecInput, options: { limits?: Partial<LoadLimits>; maxPacks?: number; rendering?: UnitRendering; sizeLimits?: GitSourceOptions['sizeLimits'] } = {}): Promise<GitSource> {
    const parsed: SourceSpec = parseSourceSpec({ name: `s-${randomUUID().slice(0, 8)}`, ref: { branch: 'main' }, intervalMs: 60_000, ...spec }, 'test source');
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-cache-'));
    const source = new GitSource({ spec: parsed, cacheDir: dir, ...options });
    await source.open();
    this.opened.push({ source, dir });
    return source;
  }

  /** packCount counts the pack files in a source's cache: a fetch that brings objects adds one. */
  async packCount(source: GitSource): Promise<number> {
    const entry = this.opened.find((candidate) => candidate.source === source);
    if (!entry) throw new Error('not a source of this fixture');
    return (await readdir(join(entry.dir, 'objects', 'pack'))).filter((name) => name.endsWith('.pack')).length;
  }

  /** holds tells whether a source's cache holds a commit. */
  async holds(source: GitSource, oid: string): Promise<boolean> {
    const entry = this.opened.find((candidate) => candidate.source === source);
    if (!entry) throw new Error('not a source of this fixture');
    return git.readCommit({ fs, gitdir: entry.dir, oid }).then(() => true, () => false);
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.opened.map(async ({ source, dir }) => {
      await source.close();
      await rm(dir, { recursive: true, force: true });
    }));
  }
}

/** summarise renders changes as "change key" lines, sorted, for exact assertions. */
export function summarise(changes: ReadonlyArray<{ change: string; objectKey: string }>): string[] {
  return changes.map((change) => `${change.change} ${change.objectKey}`).sort();
}
