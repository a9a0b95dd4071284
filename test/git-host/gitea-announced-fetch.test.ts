// A push webhook's commit asked for beside the ref discovery, against the real Gitea's smart HTTP
// (its own upload-pack handler, not the rig's CGI). A loopback forwarder in front of Gitea records
// the requests and holds the discovery's answer until the upload-pack POST has arrived, so the test
// sees that the two ran side by side; it changes no byte.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGitea, startGitea, type GiteaRepository, type TestGitea, type WorkingCopy } from '@tidemark/testing';
import { configMap, SourceFixture, summarise } from '../git-source/source-fixture';

let gitea: TestGitea;
let repository: GiteaRepository;
let copy: WorkingCopy;
let forwarder: Server;
let forwardedUrl: string;
const seen: string[] = [];
let releaseDiscovery: (() => void) | undefined;
let postDuringDiscovery = false;
// While set, a discovery's answer waits for an upload-pack POST (at most 2 s).
let holding = false;
const fixture = new SourceFixture();

beforeAll(async () => {
  await buildGitea();
  gitea = await startGitea();
  repository = await gitea.createRepository('announced');
  copy = await gitea.workingCopy(repository);
  await copy.write('apps/a.yaml', configMap('a'));
  await copy.commitAndPush('first');
  const upstream = new URL(repository.cloneUrl);
  forwarder = createServer((incoming, outgoing) => {
    const method = incoming.method ?? 'GET';
    seen.push(method);
    if (method === 'POST') {
      postDuringDiscovery ||= releaseDiscovery !== undefined;
      releaseDiscovery?.();
    }
    const held = method === 'GET' && holding ? new Promise<void>((resolve) => {
      releaseDiscovery = resolve;
      // Not a timing assertion: only keeps a broken feature from hanging the test.
      setTimeout(resolve, 2_000).unref();
    }) : Promise.resolve();
    const proxied = httpRequest({ host: upstream.hostname, port: upstream.port, method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } }, (answer) => {
      void held.then(() => {
        releaseDiscovery = undefined;
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
    });
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
  const address = forwarder.address();
  if (!address || typeof address === 'string') throw new Error('no forwarder address');
  forwardedUrl = `http://127.0.0.1:${address.port}${upstream.pathname}`;
}, 900_000);

afterAll(async () => {
  await fixture.cleanup();
  await new Promise((resolve) => forwarder?.close(resolve));
  await gitea?.stop();
});

describe('a push\'s commit fetched beside the discovery, on Gitea', () => {
  it('reads the same changes as a plain poll, and keeps nothing of a commit on another branch', async () => {
    const auth = { username: gitea.admin.username, token: gitea.admin.token };
    const announced = await fixture.open({ url: forwardedUrl, auth });
    const plain = await fixture.open({ url: repository.cloneUrl, auth });
    const first = await announced.poll();
    await plain.poll();

    await copy.write('apps/a.yaml', configMap('a', '2'));
    await copy.write('apps/b.yaml', configMap('b'));
    const second = await copy.commitAndPush('second');
    seen.length = 0;
    postDuringDiscovery = false;
    holding = true;
    const moved = await announced.poll({ since: first.revision, announced: { branch: 'main', revision: second } });
    holding = false;
    expect(postDuringDiscovery).toBe(true);
    expect(seen.sort()).toEqual(['GET', 'POST']);
    const expected = await plain.poll({ since: first.revision });
    expect(moved.revision).toBe(second);
    expect(summarise(moved.changes)).toEqual(['added core/ConfigMap/_/b', 'changed core/ConfigMap/_/a']);
    expect(summarise(moved.changes)).toEqual(summarise(expected.changes));
    expect(await announced.listObjects(second)).toEqual({ ...(await plain.listObjects(second)), source: announced.name });

    await copy.write('apps/evil.yaml', configMap('evil'));
    const other = await copy.commit('on another branch');
    await copy.push({ branch: 'other' });
    await copy.git('reset', '--quiet', '--hard', second);
    await copy.write('apps/a.yaml', configMap('a', '3'));
    const head = await copy.commitAndPush('the real head');
    const polled = await announced.poll({ since: second, announced: { branch: 'main', revision: other } });
    expect(polled.revision).toBe(head);
    expect(summarise(polled.changes)).toEqual(['changed core/ConfigMap/_/a']);
    expect(await fixture.holds(announced, other)).toBe(false);
  });
});
