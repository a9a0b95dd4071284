// One Git repository on a loopback smart-HTTP server, pushed once and read by a GitSource: the
// set-up that bench/git-poll and bench/render share.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSource, parseSourceSpec, type GitSourceOptions } from '@tidemark/git-source';
import { startGitServer, type WorkingCopy } from '@tidemark/testing';

/** GitBenchRepository is a pushed repository, its working copy, a scratch folder and a GitSource on it. */
export interface GitBenchRepository {
  url: string;
  /** The bare repository's folder (another transport, SSH, may serve it too). */
  path: string;
  copy: WorkingCopy;
  source: GitSource;
  /** A scratch folder removed by stop; the GitSource's cache is `<scratch>/tidemark`. */
  scratch: string;
  stop(): Promise<void>;
}

/**
 * openBenchRepository starts a Git server, lets `generate` write the first commit, pushes it and
 * opens a GitSource on branch main (not yet polled). `rendering` is passed to the GitSource.
 */
export async function openBenchRepository(name: string, generate: (copy: WorkingCopy) => Promise<void>, rendering?: GitSourceOptions['rendering']): Promise<GitBenchRepository> {
  const server = await startGitServer();
  const scratch = await mkdtemp(join(tmpdir(), `tidemark-bench-${name}-`));
  const stop = async () => {
    await server.stop();
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    const url = await server.createRepository(name);
    const copy = await server.workingCopy(name);
    await generate(copy);
    await copy.commitAndPush('first commit');
    const spec = parseSourceSpec({ name, url, ref: { branch: 'main' }, intervalMs: 60_000 }, name);
    const source = new GitSource({ spec, cacheDir: join(scratch, 'tidemark'), ...(rendering ? { rendering } : {}) });
    await source.open();
    return { url, path: join(server.root, `${name}.git`), copy, source, scratch, stop: async () => { await source.close(); await stop(); } };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** timed runs `work` and says how long it took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** median of the samples (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
