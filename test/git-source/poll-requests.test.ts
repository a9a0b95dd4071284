// What a poll costs the Git server, counted on a real smart-HTTP server: the poll's ref listing
// answers the discovery of the fetch that follows, so a new commit costs two requests, not three.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '@tidemark/testing';
import { configMap, SourceFixture, summarise } from './source-fixture';

const token = 'poll-requests-token-0123';
let server: GitServer;
let requests = 0;
const fixture = new SourceFixture();

beforeAll(async () => {
  // The source's requests are counted by its token; the working copy pushes with the basic-auth user.
  server = await startGitServer({
    basicAuth: { username: 'pusher', password: 'pusher-password-0123' },
    accepts: ({ username, password }) => username === 'x-access-token' && password === token && (requests += 1) > 0,
  });
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('requests per poll', () => {
  it('a new commit costs the ref listing and the pack; an unmoved ref costs the listing alone', async () => {
    const url = await server.createRepository('counted');
    const copy = await server.workingCopy('counted');
    await copy.write('a.yaml', configMap('a'));
    await copy.commitAndPush('first');
    const source = await fixture.open({ url, auth: { token } });
    requests = 0;
    const first = await source.poll();
    expect(requests).toBe(2);

    await copy.write('a.yaml', configMap('a', '2'));
    const second = await copy.commitAndPush('second');
    requests = 0;
    const moved = await source.poll({ since: first.revision });
    expect(moved.revision).toBe(second);
    expect(summarise(moved.changes)).toEqual(['changed core/ConfigMap/_/a']);
    expect(requests).toBe(2);

    requests = 0;
    const unmoved = await source.poll({ since: second });
    expect(unmoved.changes).toEqual([]);
    expect(requests).toBe(1);
  });

  it('after a warm (the fetch-ahead at start), the first poll costs the listing alone and still lists every object and problem', async () => {
    const url = await server.createRepository('warmed');
    const copy = await server.workingCopy('warmed');
    await copy.write('a.yaml', `${configMap('a')}---\n${configMap('b')}`);
    await copy.write('broken.yaml', 'kind: [unclosed\n');
    await copy.commitAndPush('first');
    const cold = await fixture.open({ url, auth: { token } });
    const expected = await cold.poll();
    const warmed = await fixture.open({ url, auth: { token } });
    requests = 0;
    expect(await warmed.warm()).toBe(expected.revision);
    expect(requests).toBe(2);
    requests = 0;
    const first = await warmed.poll();
    expect(requests).toBe(1);
    expect(first).toMatchObject({ revision: expected.revision, moved: true, fetchedObjects: 0 });
    expect(first.previousRevision).toBeUndefined();
    expect(summarise(first.changes)).toEqual(['added core/ConfigMap/_/a', 'added core/ConfigMap/_/b']);
    expect(summarise(first.changes)).toEqual(summarise(expected.changes));
    expect(first.errors).toEqual(expected.errors);
    expect(first.errors.length).toBeGreaterThan(0);
  });
});
