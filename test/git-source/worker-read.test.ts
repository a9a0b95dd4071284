// A worker process reads objects at a pinned revision from its own cache, fetching what it lacks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { configMap, SourceFixture } from './source-fixture';

let server: GitServer;
let copy: WorkingCopy;
let url: string;
const fixture = new SourceFixture();
const revisions: string[] = [];

beforeAll(async () => {
  server = await startGitServer();
  url = await server.createRepository('worker');
  copy = await server.workingCopy('worker');
  for (const value of ['1', '2', '3']) {
    await copy.write('apps/a.yaml', configMap('a', value, 'shop'));
    await copy.write(`apps/only-in-${value}.yaml`, configMap(`only-${value}`));
    if (value !== '1') await copy.delete(`apps/only-in-${Number(value) - 1}.yaml`);
    revisions.push(await copy.commitAndPush(`revision ${value}`));
  }
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('readObject in a worker with its own cache', () => {
  it('fetches the head revision it has never seen and returns the object with its place', async () => {
    const worker = await fixture.open({ url });
    const found = await worker.readObject(revisions[2]!, 'core/ConfigMap/shop/a');
    expect(found).toMatchObject({ path: 'apps/a.yaml', line: 1, object: { metadata: { name: 'a', namespace: 'shop' }, data: { value: '3' } } });
  });

  it('fetches an older revision that a shallow fetch of the branch does not include', async () => {
    const worker = await fixture.open({ url });
    expect((await worker.readObject(revisions[2]!, 'core/ConfigMap/shop/a'))?.object.data).toEqual({ value: '3' });
    expect((await worker.readObject(revisions[0]!, 'core/ConfigMap/shop/a'))?.object.data).toEqual({ value: '1' });
    expect(await worker.readObject(revisions[0]!, 'core/ConfigMap/_/only-1')).toBeDefined();
  });

  it('returns undefined for an object Git does not declare at that revision (the pipeline prunes it)', async () => {
    const worker = await fixture.open({ url });
    expect(await worker.readObject(revisions[2]!, 'core/ConfigMap/_/only-1')).toBeUndefined();
  });

  it('returns a copy that the caller may change', async () => {
    const worker = await fixture.open({ url });
    const first = await worker.readObject(revisions[2]!, 'core/ConfigMap/shop/a');
    first!.object.metadata.name = 'changed';
    expect((await worker.readObject(revisions[2]!, 'core/ConfigMap/shop/a'))?.object.metadata.name).toBe('a');
  });

  it('refuses a revision that is not in the repository, or not a commit id, as terminal', async () => {
    const worker = await fixture.open({ url });
    await expect(worker.readObject('0'.repeat(40), 'core/ConfigMap/shop/a')).rejects.toMatchObject({ kind: 'terminal', code: 'RevisionNotFound' });
    await expect(worker.readObject('main', 'core/ConfigMap/shop/a')).rejects.toMatchObject({ kind: 'terminal', code: 'RevisionInvalid' });
  });

  it('lists every object of a revision for a full resync', async () => {
    const worker = await fixture.open({ url });
    const listing = await worker.listObjects(revisions[1]!);
    expect(listing.objects.map((object) => [object.objectKey, object.path])).toEqual([
      ['core/ConfigMap/_/only-2', 'apps/only-in-2.yaml'],
      ['core/ConfigMap/shop/a', 'apps/a.yaml'],
    ]);
  });

  it('lets a poller diff from the last delivered revision (since), not its own last poll', async () => {
    const poller = await fixture.open({ url });
    await poller.poll();
    const replay = await poller.poll({ since: revisions[0]! });
    expect(replay).toMatchObject({ previousRevision: revisions[0], revision: revisions[2], moved: true });
    expect(replay.changes.map((change) => `${change.change} ${change.objectKey}`).sort()).toEqual([
      'added core/ConfigMap/_/only-3', 'changed core/ConfigMap/shop/a', 'removed core/ConfigMap/_/only-1',
    ]);
  });
});
