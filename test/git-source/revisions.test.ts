// GitSource against a real Git server over smart HTTP: every ref kind, force-pushes, no-op polls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { configMap, SourceFixture, summarise } from './source-fixture';

let server: GitServer;
const fixture = new SourceFixture();
let repository = 0;

async function newRepository(): Promise<{ url: string; copy: WorkingCopy }> {
  const name = `revisions-${(repository += 1)}`;
  const url = await server.createRepository(name);
  return { url, copy: await server.workingCopy(name) };
}

beforeAll(async () => {
  server = await startGitServer();
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('polling a branch', () => {
  it('lists everything first, then fetches nothing while the ref has not moved, then only the new objects', async () => {
    const { url, copy } = await newRepository();
    await copy.write('apps/a.yaml', `${configMap('a')}---\n${configMap('b')}`);
    await copy.write('c.yaml', configMap('c'));
    const first = await copy.commitAndPush('first');
    const source = await fixture.open({ url });

    const initial = await source.poll();
    expect(initial).toMatchObject({ revision: first, moved: true, errors: [] });
    expect(initial.previousRevision).toBeUndefined();
    expect(summarise(initial.changes)).toEqual(['added core/ConfigMap/_/a', 'added core/ConfigMap/_/b', 'added core/ConfigMap/_/c']);

    const packs = await fixture.packCount(source);
    const idle = await source.poll();
    expect(idle).toMatchObject({ revision: first, previousRevision: first, moved: false, changes: [], fetchedObjects: 0 });
    expect(await fixture.packCount(source)).toBe(packs);

    await copy.write('apps/a.yaml', `${configMap('a', '2')}---\n${configMap('b')}`);
    await copy.delete('c.yaml');
    const second = await copy.commitAndPush('second');
    const moved = await source.poll();
    expect(moved).toMatchObject({ revision: second, previousRevision: first, moved: true });
    expect(summarise(moved.changes)).toEqual(['changed core/ConfigMap/_/a', 'removed core/ConfigMap/_/c']);
    // The new commit, the root tree, apps/ and one blob: nothing that was already fetched.
    expect(moved.fetchedObjects).toBe(4);
  });

  it('converges after an amend and force-push', async () => {
    const { url, copy } = await newRepository();
    await copy.write('a.yaml', configMap('a'));
    await copy.commitAndPush('first');
    await copy.write('b.yaml', configMap('b'));
    await copy.commitAndPush('second');
    const source = await fixture.open({ url });
    await source.poll();

    await copy.delete('b.yaml');
    await copy.write('a.yaml', configMap('a', 'amended'));
    const amended = await copy.commit('second, amended', { amend: true });
    await copy.push({ force: true });
    const result = await source.poll();
    expect(result.revision).toBe(amended);
    expect(summarise(result.changes)).toEqual(['changed core/ConfigMap/_/a', 'removed core/ConfigMap/_/b']);
    expect((await source.readObject(amended, 'core/ConfigMap/_/a'))?.object.data).toEqual({ value: 'amended' });
  });

  it('reports a deleted branch as an error and converges when it is recreated', async () => {
    const { url, copy } = await newRepository();
    await copy.commitAndPush('main stays, so the server has a HEAD');
    await copy.write('a.yaml', configMap('a'));
    await copy.write('b.yaml', configMap('b'));
    await copy.commit('deploy');
    await copy.push({ branch: 'deploy' });
    const source = await fixture.open({ url, ref: { branch: 'deploy' } });
    const before = await source.poll();

    await copy.git('push', '--quiet', 'origin', ':refs/heads/deploy');
    await expect(source.poll()).rejects.toMatchObject({ code: 'GitRefNotFound', message: expect.stringContaining('has no branch deploy') });

    await copy.git('checkout', '--quiet', '--orphan', 'fresh');
    await copy.delete('b.yaml');
    await copy.write('a.yaml', configMap('a', 'recreated'));
    const recreated = await copy.commit('recreated');
    await copy.push({ branch: 'deploy' });
    const after = await source.poll();
    expect(after).toMatchObject({ revision: recreated, previousRevision: before.revision, moved: true });
    expect(summarise(after.changes)).toEqual(['changed core/ConfigMap/_/a', 'removed core/ConfigMap/_/b']);
  });
});

describe('a long-running cache', () => {
  it('starts afresh after too many packs and still reports exact changes', async () => {
    const { url, copy } = await newRepository();
    await copy.write('a.yaml', configMap('a'));
    await copy.write('b.yaml', configMap('b'));
    const first = await copy.commitAndPush('first');
    const source = await fixture.open({ url }, { maxPacks: 2 });
    await source.poll();
    const seen: string[][] = [];
    for (const round of [1, 2, 3, 4]) {
      await copy.write('a.yaml', configMap('a', `round-${round}`));
      if (round === 3) await copy.delete('b.yaml');
      await copy.commitAndPush(`round ${round}`);
      seen.push(summarise((await source.poll()).changes));
      expect(await fixture.packCount(source)).toBeLessThanOrEqual(2);
    }
    expect(seen).toEqual([
      ['changed core/ConfigMap/_/a'],
      ['changed core/ConfigMap/_/a'],
      ['changed core/ConfigMap/_/a', 'removed core/ConfigMap/_/b'],
      ['changed core/ConfigMap/_/a'],
    ]);
    // A revision whose objects left in a reset is fetched again when a worker asks for it.
    expect((await source.readObject(first, 'core/ConfigMap/_/b'))?.path).toBe('b.yaml');
  });
});

describe('polling tags and commits', () => {
  it('follows a tag that is moved', async () => {
    const { url, copy } = await newRepository();
    await copy.write('a.yaml', configMap('a'));
    const first = await copy.commitAndPush('first');
    await copy.git('tag', '-a', 'release', '-m', 'release');
    await copy.git('push', '--quiet', 'origin', 'release');
    const source = await fixture.open({ url, ref: { tag: 'release' } });
    expect((await source.poll()).revision).toBe(first);

    await copy.write('a.yaml', configMap('a', '2'));
    const second = await copy.commitAndPush('second');
    await copy.git('tag', '-f', '-a', 'release', '-m', 'moved');
    await copy.git('push', '--quiet', '--force', 'origin', 'release');
    const moved = await source.poll();
    expect(moved).toMatchObject({ revision: second, previousRevision: first });
    expect(summarise(moved.changes)).toEqual(['changed core/ConfigMap/_/a']);
  });

  it('selects the highest tag in a semver range and moves when a higher one appears', async () => {
    const { url, copy } = await newRepository();
    const tagged: Record<string, string> = {};
    for (const version of ['v1.2.0', 'v1.10.0', 'v2.0.0', 'v1.9.0']) {
      await copy.write('a.yaml', configMap('a', version));
      tagged[version] = await copy.commitAndPush(version);
      await copy.git('tag', version);
      await copy.git('push', '--quiet', 'origin', version);
    }
    const source = await fixture.open({ url, ref: { semver: '^1.0.0' } });
    expect((await source.poll()).revision).toBe(tagged['v1.10.0']);
    expect((await source.poll()).fetchedObjects).toBe(0);

    await copy.write('a.yaml', configMap('a', 'v1.11.0'));
    const newer = await copy.commitAndPush('v1.11.0');
    await copy.git('tag', 'v1.11.0');
    await copy.git('push', '--quiet', 'origin', 'v1.11.0');
    const moved = await source.poll();
    expect(moved.revision).toBe(newer);
    expect((await source.readObject(newer, 'core/ConfigMap/_/a'))?.object.data).toEqual({ value: 'v1.11.0' });
  });

  it('stays on a pinned commit', async () => {
    const { url, copy } = await newRepository();
    await copy.write('a.yaml', configMap('a', 'pinned'));
    const pinned = await copy.commitAndPush('pinned');
    await copy.write('a.yaml', configMap('a', 'later'));
    await copy.commitAndPush('later');
    const source = await fixture.open({ url, ref: { commit: pinned } });
    expect((await source.poll()).revision).toBe(pinned);
    expect(await source.poll()).toMatchObject({ revision: pinned, moved: false, fetchedObjects: 0 });
    expect((await source.readObject(pinned, 'core/ConfigMap/_/a'))?.object.data).toEqual({ value: 'pinned' });
  });
});

describe('path and ignore file', () => {
  it('reads only the source path, honours .tidemarkignore, and re-evaluates files when it changes', async () => {
    const { url, copy } = await newRepository();
    await copy.write('clusters/prod/a.yaml', configMap('a'));
    await copy.write('clusters/prod/drafts/d.yaml', configMap('d'));
    await copy.write('clusters/prod/notes.yaml', configMap('notes'));
    await copy.write('clusters/prod/README.md', '# not a manifest');
    await copy.write('clusters/prod/.tidemarkignore', 'drafts/\nnotes.yaml\n');
    await copy.write('clusters/dev/other.yaml', configMap('other'));
    await copy.commitAndPush('layout');
    const source = await fixture.open({ url, path: 'clusters/prod' });
    const first = await source.poll();
    expect(summarise(first.changes)).toEqual(['added core/ConfigMap/_/a']);
    expect(first.changes[0]?.path).toBe('clusters/prod/a.yaml');

    await copy.write('clusters/prod/.tidemarkignore', 'notes.yaml\n');
    await copy.commitAndPush('publish drafts');
    expect(summarise((await source.poll()).changes)).toEqual(['added core/ConfigMap/_/d']);
  });
});

describe('authentication', () => {
  it('authenticates with a token, and a refused token is an error that does not leak it', async () => {
    const guarded = await startGitServer({ basicAuth: { username: 'x-access-token', password: 's3cret-token' } });
    try {
      const url = await guarded.createRepository('private');
      const copy = await guarded.workingCopy('private');
      await copy.write('a.yaml', configMap('a'));
      const head = await copy.commitAndPush('first');
      const good = await fixture.open({ url, auth: { token: 's3cret-token' } });
      expect((await good.poll()).revision).toBe(head);

      const bad = await fixture.open({ url, auth: { token: 'wrong-token' } });
      const error = await bad.poll().then(() => undefined, (caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'GitAuthFailed' });
      expect(String((error as Error).message)).not.toContain('wrong-token');
      expect(JSON.stringify(error)).not.toContain('wrong-token');
    } finally {
      await guarded.stop();
    }
  });
});
