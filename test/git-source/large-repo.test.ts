// Issue 3 point 3: a one-file change in a 10,000-object repository yields exactly that object's change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { generateLargeRepository, largeRepositoryShape } from './large-repository';
import { SourceFixture, summarise } from './source-fixture';

let server: GitServer;
let copy: WorkingCopy;
let url: string;
const fixture = new SourceFixture();

beforeAll(async () => {
  server = await startGitServer();
  url = await server.createRepository('large');
  copy = await server.workingCopy('large');
  await generateLargeRepository(copy);
  await copy.commitAndPush('10,000 objects');
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('a 10,000-object repository', () => {
  it('lists 10,000 objects, then reports exactly the one that changed, fetching only the new objects', async () => {
    const source = await fixture.open({ url });
    const initial = await source.poll();
    expect(initial.changes).toHaveLength(largeRepositoryShape.objects);
    expect(initial.errors).toEqual([]);

    const { path, text } = largeRepositoryShape.changeOne(7, 42, 'changed');
    await copy.write(path, text);
    const head = await copy.commitAndPush('one object changes');
    const result = await source.poll();
    expect(result.revision).toBe(head);
    expect(summarise(result.changes)).toEqual([`changed ${largeRepositoryShape.objectKey(7, 42)}`]);
    expect(result.changes[0]).toMatchObject({ path });
    // Commit, root tree, one folder tree, one blob.
    expect(result.fetchedObjects).toBe(4);
    expect((await source.readObject(head, largeRepositoryShape.objectKey(7, 42)))?.object.data).toEqual({ value: 'changed' });
  });
});
