// Poller replicas against the rig's real Git server and Redis: one leader, takeover, status, webhook-triggered polls.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { GitSource, parseSourceSpec, type PollResult } from '@tidemark/git-source';
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import git from 'isomorphic-git';
import Fastify from 'fastify';
import { RecordKeys, readSourceCommits, readSourceStatus } from '@tidemark/contracts';
import { Poller, registerWebhookRoutes } from '@tidemark/poller';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { RedisFixture } from './redis-fixture';

const token = 'poller-test-token-0123456789';
const redis = new RedisFixture(inject('redisUrl'));
const keys = new RecordKeys(redis.prefix);
let server: GitServer;
let url: string;
let copy: WorkingCopy;
const cacheDirs: string[] = [];
const pollers: Poller[] = [];

const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${value}"\n`;

/** replica starts one reconciler replica's poller for the shared source, recording what it delivers. */
async function replica(name: string, options: { intervalMs?: number; leaseTtlMs?: number; failHandOffs?: number } = {}) {
  const spec = parseSourceSpec({ name: 'apps', url, ref: { branch: 'main' }, intervalMs: options.intervalMs ?? 60_000, jitter: 0, auth: { token } }, name);
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-poller-'));
  cacheDirs.push(dir);
  const source = new GitSource({ spec, cacheDir: dir });
  await source.open();
  const delivered: PollResult[] = [];
  const headsSeen: (string | undefined)[] = [];
  let failures = options.failHandOffs ?? 0;
  let refused = 0;
  const connection = redis.connect();
  const poller = new Poller({
    redis: connection, sources: [source], prefix: redis.prefix, leaseTtlMs: options.leaseTtlMs ?? 1_500, owner: name,
    onChanges: async (result) => {
      // As an enqueue refused while Redis fails over.
      if (failures > 0) {
        refused += 1;
        throw new Error(`hand-off ${(failures -= 1)} refused`);
      }
      headsSeen.push((await readSourceStatus(connection, keys, 'apps')).head);
      delivered.push(result);
    },
  });
  pollers.push(poller);
  await poller.start();
  return { poller, delivered, connection, headsSeen, dir, failNext: (count: number) => { failures = count; }, refused: () => refused };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

beforeAll(async () => {
  server = await startGitServer({ basicAuth: { username: 'x-access-token', password: token } });
  url = await server.createRepository('polled');
  copy = await server.workingCopy('polled');
  await copy.write('a.yaml', configMap('a', '1'));
  await copy.commitAndPush('first');
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  const admin = redis.connect();
  const keys = await admin.keys(`${redis.prefix}:*`);
  if (keys.length > 0) await admin.del(...keys);
});

afterAll(async () => {
  await redis.cleanup();
  await server?.stop();
  await Promise.all(cacheDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('Poller', () => {
  it('polls a source on exactly one of two racing replicas and records its status without credentials', async () => {
    const [one, two] = await Promise.all([replica('replica-1'), replica('replica-2')]);
    await until(() => one.delivered.length + two.delivered.length > 0, 10_000);
    expect([one.poller.isLeader('apps'), two.poller.isLeader('apps')].filter(Boolean)).toHaveLength(1);
    const leader = one.poller.isLeader('apps') ? one : two;
    const follower = leader === one ? two : one;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(follower.delivered).toEqual([]);
    expect(leader.delivered).toHaveLength(1);

    const head = await copy.git('rev-parse', 'HEAD');
    const status = await readSourceStatus(leader.connection, keys, 'apps');
    expect(status).toMatchObject({ revision: head, head, state: 'ok', leader: leader.poller.owner, changes: 1, sourceErrors: 0 });
    // The head is recorded before the changes are handed on, so a watch-woken object already sees it.
    expect(leader.headsSeen).toEqual([head]);
    expect(status.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(status.polledAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const raw = JSON.stringify(await leader.connection.hgetall(keys.sourceStatus('apps')));
    expect(raw).not.toContain(token);
  });

  it('records what the sources page shows: ref, head commit, objects declared, problems with file and line, and the fetched commits', async () => {
    await copy.write('broken.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata: [unclosed\n');
    const pushed = await copy.commitAndPush('add a broken file\n\nThe body of the message is not shown.');
    const leader = await replica('recorder-1');
    await until(() => leader.delivered.length > 0, 10_000);
    const status = await readSourceStatus(leader.connection, keys, 'apps');
    expect(status).toMatchObject({ revision: pushed, ref: 'branch main', commitMessage: 'add a broken file', commitAuthor: 'Tidemark Test', declaredObjects: 1, sourceErrors: 1, state: 'degraded' });
    expect(Date.parse(status.commitTime ?? '')).toBeGreaterThan(Date.now() - 600_000);
    expect(status.problems).toEqual([expect.objectContaining({ path: 'broken.yaml', line: expect.any(Number), message: expect.stringContaining('broken.yaml') })]);
    expect(await readSourceCommits(leader.connection, keys, 'apps')).toEqual([expect.objectContaining({ revision: pushed, message: 'add a broken file', author: 'Tidemark Test' })]);
    await copy.delete('broken.yaml');
    await copy.commitAndPush('remove the broken file');
  });

  it('hands the source over within the lease time when the leader dies, continuing from the delivered revision', async () => {
    const first = await replica('leader-1');
    await until(() => first.delivered.length > 0, 10_000);
    const second = await replica('standby-2');
    expect(second.poller.isLeader('apps')).toBe(false);

    const pushed = await copy.commitAndPush('while the leader is dead');
    first.connection.disconnect();
    await until(() => second.poller.isLeader('apps'), 10_000);
    await until(() => second.delivered.length > 0, 10_000);
    expect(second.delivered[0]).toMatchObject({ revision: pushed, previousRevision: first.delivered[0]?.revision });
  });

  it('hands over at once when the leader stops gracefully', async () => {
    // A lease of ten minutes: the follower can only lead within the wait below if the leader handed the lease over.
    const first = await replica('graceful-1', { leaseTtlMs: 600_000 });
    await until(() => first.poller.isLeader('apps'), 10_000);
    const second = await replica('graceful-2', { leaseTtlMs: 600_000 });
    await first.poller.stop();
    await until(() => second.poller.isLeader('apps'), 30_000);
  });

  // The next two tests name a leader and a follower, so leadership must not move under a loaded
  // machine (a 1.5 s lease did); and "at once" means well before the 60 s interval, not within a
  // fetch time that a loaded machine can exceed.
  it('polls immediately when any replica is triggered (as the webhook does), not only on the interval', async () => {
    const [one, two] = await Promise.all([replica('trigger-1', { leaseTtlMs: 15_000 }), replica('trigger-2', { leaseTtlMs: 15_000 })]);
    await until(() => one.delivered.length + two.delivered.length > 0, 10_000);
    const follower = one.poller.isLeader('apps') ? two : one;
    const leader = follower === one ? two : one;
    const before = leader.delivered.length;

    await copy.write('a.yaml', configMap('a', 'triggered'));
    const head = await copy.commitAndPush('triggered');
    expect(await follower.poller.trigger('apps')).toBe(true);
    await until(() => leader.delivered.length > before, 30_000);
    expect(leader.delivered.at(-1)).toMatchObject({ revision: head, changes: [{ objectKey: 'core/ConfigMap/_/a', change: 'changed' }] });
    expect(await follower.poller.trigger('unknown')).toBe(false);
  });

  it('polls at once on a signed push webhook received by a follower, long before the interval', async () => {
    const [one, two] = await Promise.all([replica('hook-1', { leaseTtlMs: 15_000 }), replica('hook-2', { leaseTtlMs: 15_000 })]);
    await until(() => one.delivered.length + two.delivered.length > 0, 10_000);
    const follower = one.poller.isLeader('apps') ? two : one;
    const leader = follower === one ? two : one;
    const before = leader.delivered.length;
    const app = Fastify();
    const secret = 'end-to-end-webhook-secret';
    const pushes: string[] = [];
    await registerWebhookRoutes(app, { hooks: [{ source: 'apps', provider: 'github', secret }], onPush: (source) => { pushes.push(source); return follower.poller.trigger(source).then(() => undefined); } });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      await copy.write('a.yaml', configMap('a', 'from-webhook'));
      const head = await copy.commitAndPush('webhook');
      const body = JSON.stringify({ ref: 'refs/heads/main', after: head });
      const signature = createHmac('sha256', secret).update(body).digest('hex');
      const forged = await fetch(`${baseUrl}/hooks/apps`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }, body });
      expect(forged.status).toBe(401);
      // Refused before anything is triggered: the answer comes after the signature check.
      expect(pushes).toEqual([]);
      expect(leader.delivered.length).toBe(before);
      const response = await fetch(`${baseUrl}/hooks/apps`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${signature}` }, body });
      expect(response.status).toBe(202);
      expect(pushes).toEqual(['apps']);
      await until(() => leader.delivered.length > before, 30_000);
      expect(leader.delivered.at(-1)?.revision).toBe(head);
    } finally {
      await app.close();
    }
  });

  it('delivers the ref\'s real head, and keeps nothing of it, when a push webhook names another commit', async () => {
    const leader = await replica('announced', { leaseTtlMs: 15_000 });
    await until(() => leader.delivered.length > 0, 10_000);
    const before = leader.delivered.length;
    // A commit the server holds, on another branch: asked for early on the webhook's word, then refused.
    const base = await copy.git('rev-parse', 'HEAD');
    await copy.write('a.yaml', configMap('a', 'not-on-main'));
    const other = await copy.commit('on another branch');
    await copy.push({ branch: 'announced-other' });
    await copy.git('reset', '--quiet', '--hard', base);
    await copy.write('a.yaml', configMap('a', 'the-real-head'));
    const head = await copy.commitAndPush('the real head');
    expect(await leader.poller.pushed('apps', undefined, { branch: 'main', revision: other })).toBe(true);
    await until(() => leader.delivered.length > before, 30_000);
    expect(leader.delivered.at(-1)).toMatchObject({ revision: head, changes: [{ objectKey: 'core/ConfigMap/_/a', change: 'changed' }] });
    expect(await git.readCommit({ fs, gitdir: leader.dir, oid: other }).then(() => true, () => false)).toBe(false);
  });

  it('hands a source\'s first revision over again when that hand-off failed (nothing was delivered before it)', async () => {
    const { delivered } = await replica('r1', { intervalMs: 1_000, failHandOffs: 1 });
    await until(() => delivered.length > 0, 15_000);
    expect(delivered[0]!.revision).toBe((await copy.git('rev-parse', 'HEAD')).trim());
    expect(delivered[0]!.changes.map((change) => change.objectKey)).toContain('core/ConfigMap/_/a');
  });

  it('polls again soon, not a whole interval later, when a push\'s poll failed to hand its changes on', async () => {
    // A 10-minute interval: a webhook triggers the only poll for a long while, so a failed one must be retried.
    const leader = await replica('retry', { intervalMs: 600_000, leaseTtlMs: 15_000 });
    await until(() => leader.delivered.length > 0, 15_000);
    const before = leader.delivered.length;
    leader.failNext(1);
    await copy.write('a.yaml', configMap('a', 'retried'));
    const head = await copy.commitAndPush('retried');
    expect(await leader.poller.pushed('apps')).toBe(true);
    await until(() => leader.delivered.length > before, 30_000);
    expect(leader.delivered.at(-1)).toMatchObject({ revision: head, changes: [{ objectKey: 'core/ConfigMap/_/a', change: 'changed' }] });
    expect(leader.refused()).toBe(1);
  });

  it('records a failed poll with its reason and keeps the last good revision', async () => {
    const spec = parseSourceSpec({ name: 'broken', url: `${server.baseUrl}/missing.git`, ref: { branch: 'main' }, intervalMs: 60_000, auth: { token } }, 'broken');
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-poller-'));
    cacheDirs.push(dir);
    const source = new GitSource({ spec, cacheDir: dir });
    await source.open();
    const connection = redis.connect();
    await connection.hset(keys.sourceStatus('broken'), 'revision', 'f'.repeat(40));
    const errors: string[] = [];
    const poller = new Poller({ redis: connection, sources: [source], prefix: redis.prefix, leaseTtlMs: 1_500, onChanges: async () => undefined, onError: (_source, error) => errors.push(String(error)) });
    pollers.push(poller);
    await poller.start();
    await until(async () => (await readSourceStatus(connection, keys, 'broken')).state === 'error', 10_000);
    const status = await readSourceStatus(connection, keys, 'broken');
    expect(status).toMatchObject({ revision: 'f'.repeat(40), state: 'error', error: expect.stringContaining('missing.git') });
    expect(JSON.stringify(status)).not.toContain(token);
    expect(errors.length).toBeGreaterThan(0);
  });
});
