// An agent fetches a source ahead of its jobs (issue 40 item 7): the hub's poller announces on
// RecordKeys.sourceHeads that a source may have moved (a push's webhook, a poll that found a new
// head), and the agent's prefetch, logged in to Redis as the ACL user agentAclRule makes, fetches
// the ref through its GitSource's revision gate. Real Redis (its own server, for the ACL user),
// real Git over smart HTTP, the real Poller and GitSource. What it shows: once the hint was taken,
// the agent's job for the new head is admitted and read with the Git server stopped, so the
// commit was in its cache before the job ran; a forged hint fetches nothing it names and is bounded.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RecordKeys, sourceHeadMessage } from '@tidemark/contracts';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { Poller, startSourcePrefetch } from '@tidemark/poller';
import { agentAclRule, redisPrefix } from '@tidemark/queue';
import { startGitServer, startRedis, type GitServer, type TestRedis, type WorkingCopy } from '@tidemark/testing';

const id = randomUUID().slice(0, 8);
const naming = { prefix: `apf-${id}`, hashTag: true };
const keys = new RecordKeys(redisPrefix(naming));
const user = `agent-edge-${id}`;
const password = randomUUID().replaceAll('-', '');
const silent = { info: () => undefined, warn: () => undefined };
const configMap = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: edge\ndata:\n  value: "${value}"\n`;

let redis: TestRedis;
let admin: Redis;
let agentRedis: Redis;
let git: GitServer;
let gitStopped = false;
let repo: WorkingCopy;
let url: string;
let poller: Poller;
let agentSource: GitSource;
const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];

async function openSource(name: string): Promise<GitSource> {
  const dir = await mkdtemp(join(tmpdir(), `tidemark-prefetch-${name}-`));
  dirs.push(dir);
  const source = new GitSource({ spec: parseSourceSpec({ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 3_600_000, jitter: 0 }, name), cacheDir: dir });
  await source.open();
  return source;
}

/** prefetch starts an agent's prefetch on the agent's own Redis login, listing the sources its hints looked up and counting the fetches it started; each test stops its own. */
async function prefetch(minIntervalMs?: number) {
  const seen = { looked: [] as string[], warms: 0, warmed: [] as string[] };
  const stop = await startSourcePrefetch({
    redis: agentRedis, keys, log: silent, ...(minIntervalMs === undefined ? {} : { minIntervalMs }),
    sourceOf: (name) => {
      seen.looked.push(name);
      return name === 'apps' ? { warm: (revision) => ((seen.warms += 1), agentSource.warm(revision)) } : undefined;
    },
    onWarmed: (_source, head) => seen.warmed.push(head),
  });
  stops.push(stop);
  return { seen, stop };
}

beforeAll(async () => {
  redis = await startRedis({ url: '' });
  admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, ...agentAclRule('edge', naming));
  agentRedis = new Redis(redis.url, { username: user, password, maxRetriesPerRequest: 1 });
  git = await startGitServer();
  url = await git.createRepository('prefetch');
  repo = await git.workingCopy('prefetch');
  await repo.write('settings.yaml', configMap('one'));
  const first = await repo.commitAndPush('one');
  poller = new Poller({ redis: admin, sources: [await openSource('hub')], prefix: keys.prefix, leaseTtlMs: 1_500, owner: 'hub', onChanges: async () => undefined });
  await poller.start();
  agentSource = await openSource('agent');
  // The agent's first job, before any hint: it fetches for itself.
  expect(await agentSource.admitRevision(first)).toBe(first);
  await vi.waitFor(async () => expect((await admin.hget(keys.sourceStatus('apps'), 'revision'))).toBe(first), { timeout: 30_000, interval: 50 });
}, 120_000);

afterAll(async () => {
  for (const stop of stops) await stop();
  await poller?.stop();
  await agentSource?.close();
  agentRedis?.disconnect();
  admin?.disconnect();
  await redis?.stop();
  if (!gitStopped) await git?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('an agent fetching ahead of its jobs', () => {
  it('refuses a forged hint what it names, and starts at most one fetch per interval however many come', async () => {
    const { seen, stop } = await prefetch(3_600_000);
    const forged = randomBytes(20).toString('hex');
    // An agent's login may publish on the channel too: the forger here is an agent.
    for (let index = 0; index < 30; index += 1) await agentRedis.publish(keys.sourceHeads, sourceHeadMessage({ source: 'apps', revision: forged }));
    // Hostile messages: oversized, not JSON, a revision that is no commit id, no source; none is looked up.
    await agentRedis.publish(keys.sourceHeads, sourceHeadMessage({ source: 'apps'.repeat(400) }));
    await agentRedis.publish(keys.sourceHeads, '{"source": "apps"');
    await agentRedis.publish(keys.sourceHeads, JSON.stringify({ source: 'apps', revision: 'HEAD~1' }));
    await agentRedis.publish(keys.sourceHeads, JSON.stringify({ revision: forged }));
    await agentRedis.publish(keys.sourceHeads, sourceHeadMessage({ source: 'unknown' }));
    // Messages arrive in order, so once the last one was looked up every one before it was.
    await vi.waitFor(() => expect(seen.looked).toContain('unknown'), { timeout: 10_000, interval: 20 });
    expect(seen.looked.filter((name) => name !== 'apps' && name !== 'unknown')).toEqual([]);
    await vi.waitFor(() => expect(seen.warmed).toHaveLength(1), { timeout: 30_000, interval: 20 });
    expect(seen.warms).toBe(1);
    // The one fetch was the ref's head; what the hint named was neither fetched nor admitted.
    expect(seen.warmed[0]).toBe(await admin.hget(keys.sourceStatus('apps'), 'revision'));
    await expect(agentSource.admitRevision(forged)).rejects.toThrow(/not on source apps/);
    // Redis refused the agent's login nothing: the channel is in its ACL.
    const log = (await admin.call('ACL', 'LOG')) as unknown[][];
    expect(log.filter((entry) => entry.includes(user))).toEqual([]);
    await stop();
  }, 60_000);

  it('fetches the new head a poll announces, without a webhook', async () => {
    const { seen, stop } = await prefetch();
    await repo.write('settings.yaml', configMap('two'));
    const second = await repo.commitAndPush('two');
    await poller.trigger('apps');
    await vi.waitFor(() => expect(seen.warmed).toContain(second), { timeout: 30_000, interval: 20 });
    await stop();
  }, 60_000);

  it('has a pushed commit in its cache before its job runs: the job is admitted and read with Git stopped', async () => {
    const { seen } = await prefetch();
    await repo.write('settings.yaml', configMap('three'));
    const third = await repo.commitAndPush('three');
    // As the hub's webhook route does on a push.
    expect(await poller.pushed('apps')).toBe(true);
    await vi.waitFor(() => expect(seen.warmed).toContain(third), { timeout: 30_000, interval: 20 });
    await poller.stop();
    await git.stop();
    gitStopped = true;
    expect(await agentSource.admitRevision(third)).toBe(third);
    expect((await agentSource.readObject(third, 'core/ConfigMap/edge/settings'))?.object.data).toEqual({ value: 'three' });
  }, 60_000);
});
