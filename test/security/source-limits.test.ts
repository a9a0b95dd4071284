// Partial 3: a source's own Git size limits (tidemark.yaml `sources[].limits`, in MiB) hold that
// source tighter than the reconciler's, never looser (issue 34 item 11: a Source writing
// maxObjectMiB: 1024 would otherwise lift the memory bound of every replica).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { GitSource, parseSourceSpec, type GitSourceOptions } from '@tidemark/git-source';
import { startGitServer, type GitServer } from '@tidemark/testing';

let git: GitServer;
let work: string;
let url = '';

/** configMap is a ConfigMap of about `kib` KiB. */
const configMap = (name: string, kib: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: limits\ndata:\n  v: "${'a'.repeat(kib * 1024)}"\n`;

async function pollWith(limits: Record<string, number> | undefined, operator?: GitSourceOptions['sizeLimits']): Promise<{ objects: number } | { code: string; message: string }> {
  const spec = parseSourceSpec({ name: 'tight', url, ref: { branch: 'main' }, intervalMs: 1000, ...(limits ? { limits } : {}) }, 'sources[0]');
  const source = new GitSource({ spec, cacheDir: await mkdtemp(join(work, 'cache-')), ...(operator ? { sizeLimits: operator } : {}) });
  await source.open();
  try {
    return { objects: (await source.poll()).changes.length };
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  } finally {
    await source.close();
  }
}

beforeAll(async () => {
  git = await startGitServer();
  work = await mkdtemp(join(tmpdir(), 'tidemark-limits-'));
  const name = `limits-${randomUUID().slice(0, 8)}`;
  url = await git.createRepository(name);
  const copy = await git.workingCopy(name);
  // 1.5 MiB of manifests in one revision: under the 16 MiB default, over a 1 MiB source limit.
  for (const index of [1, 2, 3]) await copy.write(`big-${index}.yaml`, configMap(`big-${index}`, 512));
  await copy.commitAndPush('three half-MiB ConfigMaps');
});
afterAll(async () => {
  await git?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('per-source Git size limits', () => {
  it('reads the revision under the default limits', async () => {
    expect(await pollWith(undefined)).toEqual({ objects: 3 });
  });

  it('refuses it whole (SourceTooLarge) for a source whose maxRevisionMiB is 1', async () => {
    const outcome = await pollWith({ maxRevisionMiB: 1 });
    expect(outcome).toMatchObject({ code: 'SourceTooLarge' });
    expect((outcome as { message: string }).message).toMatch(/Source tight: revision [0-9a-f]{12} holds more than 1 MiB of manifests/);
  });

  it('never raises the reconciler\'s limits: a source asking for 4096 MiB under an operator\'s 1 MiB is refused all the same', async () => {
    const outcome = await pollWith({ maxRevisionMiB: 4096, maxObjectMiB: 1024, maxFetchMiB: 8192 }, { maxRevisionBytes: 1024 * 1024 });
    expect(outcome).toMatchObject({ code: 'SourceTooLarge' });
    expect((outcome as { message: string }).message).toMatch(/revision [0-9a-f]{12} holds more than 1 MiB of manifests/);
  });
});
