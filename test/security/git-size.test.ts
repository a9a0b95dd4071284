// Hole 3: a Git "zip bomb" must not exhaust the reconciler's memory. Sizes are checked from
// pack headers before anything is inflated, and each revision has a byte budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { run, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';

const maxRssMiB = 300;
let git: GitServer;
let work: string;

interface PollOutcome { ok: boolean; code?: string; message?: string; objects?: number; maxRssMiB: number }

/** pollInChild polls the repository in a fresh process and returns its outcome and peak RSS. */
async function pollInChild(url: string, cacheDir: string): Promise<PollOutcome> {
  const output = await run(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'poll-once.ts'), url, cacheDir]);
  return JSON.parse(output.trim().split('\n').at(-1)!) as PollOutcome;
}

/**
 * push sends the branch and packs the server's objects, as a hosted Git server keeps them: the
 * rig's http-backend would otherwise recompress a loose 256 MiB blob on every fetch, silently for
 * longer than the client waits.
 */
async function push(copy: WorkingCopy, name: string): Promise<void> {
  await copy.push();
  await run('git', ['-C', join(git.root, `${name}.git`), 'repack', '-adq']);
}

async function repository(): Promise<{ name: string; url: string; copy: WorkingCopy; cacheDir: string }> {
  const name = `bomb-${randomUUID().slice(0, 8)}`;
  const url = await git.createRepository(name);
  const copy = await git.workingCopy(name);
  await copy.write('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: bombed\n');
  await copy.git('add', 'ns.yaml');
  return { name, url, copy, cacheDir: await mkdtemp(join(work, 'cache-')) };
}

/** addBlob stores a blob made by a shell pipeline straight into the index, without a working-tree file. */
async function addBlob(copy: WorkingCopy, path: string, pipeline: string): Promise<void> {
  const oid = (await run('sh', ['-c', `${pipeline} | git -C '${copy.dir}' hash-object -w --stdin`])).trim();
  await copy.git('update-index', '--add', '--cacheinfo', `100644,${oid},${path}`);
}

/** configMapPipeline writes a ConfigMap whose one value is about 1.9 MiB. */
const configMapPipeline = (index: number) =>
  `{ printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: big-${index}\\n  namespace: bombed\\ndata:\\n  v: "'; head -c 1992294 /dev/zero | tr '\\0' 'a'; printf '"\\n'; }`;

beforeAll(async () => {
  git = await startGitServer();
  work = await mkdtemp(join(tmpdir(), 'tidemark-bomb-'));
});
afterAll(async () => {
  await git?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('Git size limits', () => {
  it('refuses a 256 MiB blob of zeros (a push of about 1 MB) with SourceTooLarge, under 300 MiB RSS', async () => {
    const { name, url, copy, cacheDir } = await repository();
    await addBlob(copy, 'zeros.yaml', 'head -c 268435456 /dev/zero');
    await copy.git('commit', '--quiet', '-m', 'zip bomb');
    await push(copy, name);
    const outcome = await pollInChild(url, cacheDir);
    console.log(`figure zip-bomb: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject({ ok: false, code: 'SourceTooLarge' });
    expect(outcome.message).toMatch(/Source attacked: a blob of 256\.0 MiB was pushed, more than the limit of 16\.0 MiB per object/);
    expect(outcome.maxRssMiB).toBeLessThan(maxRssMiB);
  });

  it('refuses 200 ConfigMaps of 1.9 MiB each in one push, under 300 MiB RSS', async () => {
    const { name, url, copy, cacheDir } = await repository();
    for (let index = 0; index < 200; index += 1) await addBlob(copy, `big/cm-${index}.yaml`, configMapPipeline(index));
    await copy.git('commit', '--quiet', '-m', 'many big ConfigMaps');
    await push(copy, name);
    const outcome = await pollInChild(url, cacheDir);
    console.log(`figure configmaps-one-push: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject({ ok: false, code: 'SourceTooLarge' });
    expect(outcome.message).toMatch(/more than 64(\.0)? MiB/);
    expect(outcome.maxRssMiB).toBeLessThan(maxRssMiB);
  });

  it('refuses a revision that grows past the budget in small pushes, under 300 MiB RSS', async () => {
    const { name, url, copy, cacheDir } = await repository();
    for (let index = 0; index < 6; index += 1) await addBlob(copy, `big/cm-${index}.yaml`, configMapPipeline(index));
    await copy.git('commit', '--quiet', '-m', 'first 6');
    await push(copy, name);
    const first = await pollInChild(url, cacheDir);
    console.log(`figure configmaps-first: ${JSON.stringify(first)}`);
    expect(first).toMatchObject({ ok: true, objects: 7 });
    for (let index = 6; index < 12; index += 1) await addBlob(copy, `big/cm-${index}.yaml`, configMapPipeline(index));
    await copy.git('commit', '--quiet', '-m', 'next 6');
    await push(copy, name);
    const second = await pollInChild(url, cacheDir);
    console.log(`figure configmaps-grown: ${JSON.stringify(second)}`);
    expect(second).toMatchObject({ ok: false, code: 'SourceTooLarge' });
    expect(second.message).toMatch(/holds more than 16 MiB of manifests \(the budget\), passed at big\/cm-/);
    // The budget is decided from the files' sizes before any is parsed, so the refused revision parses nothing.
    expect(second.maxRssMiB).toBeLessThan(maxRssMiB);
  });
});
