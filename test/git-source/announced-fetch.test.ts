// A push webhook's commit is asked for beside the ref discovery (one round trip instead of two in
// a row), on the real `git http-backend`; the pack is kept only when the server's ref points at
// that very commit. The webhook body is hostile input: a wrong, unknown or oversized commit costs
// one wasted request and applies nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '@tidemark/testing';
import { configMap, SourceFixture, summarise } from './source-fixture';

const token = 'announced-fetch-token-0123';
let server: GitServer;
let requests: Array<{ method: string; url: string }> = [];
// While set, a ref discovery of this repository is answered only once an upload-pack POST has arrived.
let holdDiscoveryOf: string | undefined;
let releasePost: (() => void) | undefined;
let postSeenDuringDiscovery = false;
const fixture = new SourceFixture();

beforeAll(async () => {
  server = await startGitServer({
    basicAuth: { username: 'pusher', password: 'pusher-password-0123' },
    accepts: ({ username, password }) => username === 'x-access-token' && password === token,
    beforeServe: async (request) => {
      if (!request.url.includes('/announced-')) return;
      requests.push(request);
      if (request.method === 'POST') {
        postSeenDuringDiscovery ||= releasePost !== undefined;
        releasePost?.();
        return;
      }
      if (holdDiscoveryOf && request.url.includes(`/${holdDiscoveryOf}.git/info/refs`)) {
        // Not a timing assertion: the fallback only keeps a broken feature from hanging the test.
        await new Promise<void>((resolve) => {
          releasePost = resolve;
          setTimeout(resolve, 2_000).unref();
        });
        releasePost = undefined;
      }
    },
  });
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

async function repository(name: string) {
  const url = await server.createRepository(name);
  const copy = await server.workingCopy(name);
  await copy.write('apps/a.yaml', `${configMap('a')}---\n${configMap('b')}`);
  await copy.write('apps/c.yaml', configMap('c'));
  const first = await copy.commitAndPush('first');
  return { url, copy, first };
}

describe('a push webhook\'s commit fetched beside the discovery', () => {
  it('asks for the pack while the discovery is open and reads the same tree as a plain poll', async () => {
    const { url, copy } = await repository('announced-same');
    const announced = await fixture.open({ url, auth: { token } });
    const plain = await fixture.open({ url, auth: { token } });
    const first = await announced.poll();
    await plain.poll();

    await copy.write('apps/c.yaml', configMap('c', '2'));
    await copy.write('apps/d.yaml', configMap('d'));
    const second = await copy.commitAndPush('second');
    holdDiscoveryOf = 'announced-same';
    postSeenDuringDiscovery = false;
    requests = [];
    const moved = await announced.poll({ since: first.revision, announced: { branch: 'main', revision: second } });
    holdDiscoveryOf = undefined;
    expect(postSeenDuringDiscovery).toBe(true);
    expect(requests.map((request) => request.method).sort()).toEqual(['GET', 'POST']);
    expect(moved.revision).toBe(second);
    expect(await fixture.holds(announced, second)).toBe(true);

    const expected = await plain.poll({ since: first.revision });
    expect(summarise(moved.changes)).toEqual(['added core/ConfigMap/_/d', 'changed core/ConfigMap/_/c']);
    expect(summarise(moved.changes)).toEqual(summarise(expected.changes));
    expect(moved.fetchedObjects).toBe(expected.fetchedObjects);
    expect(await announced.listObjects(second)).toEqual({ ...(await plain.listObjects(second)), source: announced.name });
    expect((await announced.readObject(second, 'core/ConfigMap/_/c'))?.object).toEqual((await plain.readObject(second, 'core/ConfigMap/_/c'))?.object);

    // The next push is a small delta on top of the kept pack: its have was recorded.
    await copy.write('apps/c.yaml', configMap('c', '3'));
    const third = await copy.commitAndPush('third');
    const next = await announced.poll({ since: second, announced: { branch: 'main', revision: third } });
    expect(summarise(next.changes)).toEqual(['changed core/ConfigMap/_/c']);
  });

  it('keeps nothing of a commit the ref does not point at: the poll applies the real head', async () => {
    const { url, copy, first } = await repository('announced-wrong');
    const source = await fixture.open({ url, auth: { token } });
    await source.poll();
    // A commit the server holds, on another branch: the server sends it, the gate refuses it.
    await copy.write('apps/evil.yaml', configMap('evil'));
    const other = await copy.commit('on another branch');
    await copy.push({ branch: 'other' });
    await copy.git('reset', '--quiet', '--hard', first);
    await copy.write('apps/c.yaml', configMap('c', '2'));
    const head = await copy.commitAndPush('the real head');

    requests = [];
    const polled = await source.poll({ since: first, announced: { branch: 'main', revision: other } });
    expect(polled.revision).toBe(head);
    expect(summarise(polled.changes)).toEqual(['changed core/ConfigMap/_/c']);
    expect(await fixture.holds(source, other)).toBe(false);
    // The wasted POST, then the usual discovery and fetch.
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(2);
    await expect(source.admitRevision(other)).rejects.toMatchObject({ code: 'RevisionNotAdmitted' });
  });

  it('falls back to the usual fetch for a commit the server does not have, or another branch', async () => {
    const { url, copy, first } = await repository('announced-unknown');
    const source = await fixture.open({ url, auth: { token } });
    await source.poll();
    await copy.write('apps/c.yaml', configMap('c', '2'));
    const head = await copy.commitAndPush('second');
    const unknown = randomBytes(20).toString('hex');
    const polled = await source.poll({ since: first, announced: { branch: 'main', revision: unknown } });
    expect(polled.revision).toBe(head);
    expect(summarise(polled.changes)).toEqual(['changed core/ConfigMap/_/c']);

    await copy.write('apps/c.yaml', configMap('c', '3'));
    const third = await copy.commitAndPush('third');
    requests = [];
    const elsewhere = await source.poll({ since: head, announced: { branch: 'not-followed', revision: third } });
    expect(elsewhere.revision).toBe(third);
    // Not the followed branch: nothing is asked for early; discovery and fetch as before.
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('cuts an oversized announced pack at the fetch limit and keeps none of it', async () => {
    const { url, copy, first } = await repository('announced-large');
    const source = await fixture.open({ url, auth: { token } }, { sizeLimits: { maxFetchBytes: 256 * 1024 } });
    await source.poll();
    // Random bytes do not compress: the pack of this commit is over the limit.
    await copy.write('blob/large.bin', randomBytes(1024 * 1024).toString('base64'));
    const large = await copy.commit('large');
    await copy.push({ branch: 'large' });
    await copy.git('reset', '--quiet', '--hard', first);
    await copy.write('apps/c.yaml', configMap('c', '2'));
    const head = await copy.commitAndPush('small head');

    const polled = await source.poll({ since: first, announced: { branch: 'main', revision: large } });
    expect(polled.revision).toBe(head);
    expect(await fixture.holds(source, large)).toBe(false);
  });
});
