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

interface PollOutcome { ok: boolean; code?: string; message?: string; objects?: number; errors?: string[]; maxRssMiB: number }

/** pollInChild polls the repository in a fresh process and returns its outcome and peak RSS. */
async function pollInChild(url: string, cacheDir: string): Promise<PollOutcome> {
  // The heap flags of the shipped reconciler (deploy/docker/reconciler.Dockerfile): Node 24's default
  // young generation alone takes ~90 MiB more of a 300 MiB budget than the image allows it.
  const output = await run(process.execPath, ['--max-semi-space-size=4', '--max-old-space-size=512', '--import', 'tsx', join(import.meta.dirname, 'poll-once.ts'), url, cacheDir]);
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

/** configMapPipeline writes a ConfigMap whose one value, a double-quoted scalar, is about 1.9 MiB (or `bytes`). */
const configMapPipeline = (index: number, bytes = 1992294) =>
  `{ printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: big-${index}\\n  namespace: bombed\\ndata:\\n  v: "'; head -c ${bytes} /dev/zero | tr '\\0' 'a'; printf '"\\n'; }`;

/** blockScalarPipeline writes a ConfigMap whose one value is a block scalar of about 2 MiB in lines of one character. */
const blockScalarPipeline = (index: number) =>
  `{ printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: lines-${index}\\n  namespace: bombed\\ndata:\\n  v: |\\n'; yes '    a' | head -n 348000; }`;

/** listPipeline writes a ConfigMap holding a flow list of about a million items (2 MiB). */
const listPipeline = (index: number) =>
  `{ printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: list-${index}\\n  namespace: bombed\\ndata:\\n  v: ['; yes '1,' | head -n 1040000 | tr -d '\\n'; printf '1]\\n'; }`;

/**
 * The largest revision the limits accept: eight files just under the 2 MiB file limit whose sum stays
 * under the 16 MiB budget. Each shape is the most the YAML library allocates per byte of its kind.
 */
const worstAccepted = { bytesPerFile: 2_090_000, files: 8 };

beforeAll(async () => {
  git = await startGitServer();
  work = await mkdtemp(join(tmpdir(), 'tidemark-bomb-'));
});
afterAll(async () => {
  await git?.stop();
  await rm(work, { recursive: true, force: true });
});

// Each test commits and pushes up to hundreds of MiB through a real Git server before the poll it measures:
// 60–85 s at load 15–20 for the first two, so the rig's 120 s default is too tight on a loaded machine.
describe('Git size limits', { timeout: 300_000 }, () => {
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

  it('reads the largest accepted revision of 2 MiB double-quoted scalars (16 MiB in 8 files) under 300 MiB RSS', async () => {
    const { name, url, copy, cacheDir } = await repository();
    for (let index = 0; index < worstAccepted.files; index += 1) await addBlob(copy, `big/cm-${index}.yaml`, configMapPipeline(index, worstAccepted.bytesPerFile - 100));
    await copy.git('commit', '--quiet', '-m', 'as large as accepted');
    await push(copy, name);
    const outcome = await pollInChild(url, cacheDir);
    console.log(`figure configmaps-largest-accepted: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject({ ok: true, objects: worstAccepted.files + 1 });
    expect(outcome.maxRssMiB).toBeLessThan(maxRssMiB);
  });

  it('reads 8 files of 2 MiB block scalars in one-character lines under 300 MiB RSS', async () => {
    const { name, url, copy, cacheDir } = await repository();
    for (let index = 0; index < worstAccepted.files; index += 1) await addBlob(copy, `lines/cm-${index}.yaml`, blockScalarPipeline(index));
    await copy.git('commit', '--quiet', '-m', 'block scalars');
    await push(copy, name);
    const outcome = await pollInChild(url, cacheDir);
    console.log(`figure block-scalars: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject({ ok: true, objects: worstAccepted.files + 1 });
    expect(outcome.maxRssMiB).toBeLessThan(maxRssMiB);
  });

  it('refuses each of 8 files of a million list items for its node count, before parsing, under 300 MiB RSS', async () => {
    const { name, url, copy, cacheDir } = await repository();
    for (let index = 0; index < worstAccepted.files; index += 1) await addBlob(copy, `lists/cm-${index}.yaml`, listPipeline(index));
    await copy.git('commit', '--quiet', '-m', 'long lists');
    await push(copy, name);
    const outcome = await pollInChild(url, cacheDir);
    console.log(`figure long-lists: ${JSON.stringify(outcome)}`);
    expect(outcome).toMatchObject({ ok: true, objects: 1 });
    expect(outcome.errors).toHaveLength(worstAccepted.files);
    expect(outcome.errors?.[0]).toMatch(/lists\/cm-\d\.yaml.*\b7\b.*more than 500000 YAML nodes \(keys, values, list items\) in one file/);
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
    expect(first.maxRssMiB).toBeLessThan(maxRssMiB);
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
