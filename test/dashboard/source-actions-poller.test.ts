// The dashboard's source actions with a real poller on the rig's Git server: a suspended source is not polled, resume polls at once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { readSourceStatus } from '@tidemark/contracts';
import { GitSource, parseSourceSpec, type PollResult } from '@tidemark/git-source';
import { Poller } from '@tidemark/poller';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { operatorToken, startDashboardFixture, type DashboardFixture } from './dashboard-fixture';

const token = 'source-actions-token-0123456789';
const configMap = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  value: "${value}"\n`;
let fixture: DashboardFixture;
let server: GitServer;
let copy: WorkingCopy;
let cacheDir: string;
let poller: Poller | undefined;
const delivered: PollResult[] = [];

beforeAll(async () => {
  server = await startGitServer({ basicAuth: { username: 'x-access-token', password: token } });
  const url = await server.createRepository('acted');
  copy = await server.workingCopy('acted');
  await copy.write('a.yaml', configMap('1'));
  await copy.commitAndPush('first');
  fixture = await startDashboardFixture(inject('redisUrl'));
  cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-source-actions-'));
  // An hour's interval: every poll after the first is one the actions asked for.
  const spec = parseSourceSpec({ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 3_600_000, jitter: 0, auth: { token } }, 'apps');
  const source = new GitSource({ spec, cacheDir });
  await source.open();
  poller = new Poller({ redis: fixture.redis, sources: [source], prefix: fixture.prefix, leaseTtlMs: 15_000, owner: 'replica-1', onChanges: async (result) => { delivered.push(result); } });
  await poller.start();
});
afterAll(async () => {
  await poller?.stop();
  await fixture?.stop();
  await server?.stop();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

const status = () => readSourceStatus(fixture.redis, fixture.store.keys, 'apps');
const act = (verb: string) => fixture.app.inject({ method: 'POST', url: `/api/sources/apps/${verb}`, headers: { authorization: `Bearer ${operatorToken}` } });

it('skips the polls of a suspended source, and resume polls at once', async () => {
  await expect.poll(() => delivered.length, { timeout: 20_000 }).toBe(1);
  const first = delivered[0]!.revision;

  expect((await act('suspend')).statusCode).toBe(200);
  await copy.write('a.yaml', configMap('2'));
  const second = await copy.commitAndPush('second');
  // A fetch while suspended runs the poll, which records the suspension and reads nothing from Git.
  expect((await act('fetch')).statusCode).toBe(200);
  await expect.poll(async () => (await status()).state, { timeout: 20_000 }).toBe('suspended');
  expect(await status()).toMatchObject({ suspended: true, revision: first });
  expect(delivered).toHaveLength(1);

  expect((await act('resume')).statusCode).toBe(200);
  await expect.poll(() => delivered.length, { timeout: 20_000 }).toBe(2);
  expect(delivered[1]).toMatchObject({ revision: second, changes: [{ objectKey: 'core/ConfigMap/_/a', change: 'changed' }] });
  await expect.poll(async () => (await status()).state, { timeout: 20_000 }).toBe('ok');
  expect((await status()).suspended).toBeUndefined();
});
