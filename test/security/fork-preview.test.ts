// Issue 34, item 16: a pull request from a fork was previewed from the base repository's branch of the
// same name. The fork's branch `feature` is here a pull request head (refs/pull/1/head, as GitHub and
// Gitea keep it in the base repository) while the base repository has a `feature` branch of its own:
// the preview must read the pull request's head commit, the one its webhook named, or refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RecordKeys, type PreviewJob } from '@tidemark/contracts';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { createDefaultRegistry } from '@tidemark/kinds';
import { openGitPreviewHead, runPreviewJob, type PreviewJobDependencies } from '@tidemark/preview';
import { startGitServer, startRedis, type GitServer, type TestRedis } from '@tidemark/testing';

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n`;
let git: GitServer;
let testRedis: TestRedis;
let redis: Redis;
let work: string;
let base: GitSource;
let deps: PreviewJobDependencies;
let forkHead: string;
let baseFeature: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tidemark-fork-preview-'));
  git = await startGitServer();
  testRedis = await startRedis();
  redis = new Redis(testRedis.url);
  const url = await git.createRepository('app');
  const copy = await git.workingCopy('app');
  await copy.write('settings.yaml', configMap('settings'));
  await copy.commitAndPush('first');
  // The base repository's own branch `feature`.
  await copy.git('checkout', '--quiet', '-b', 'feature');
  await copy.write('base-only.yaml', configMap('base-only'));
  baseFeature = (await copy.commit('base feature')).trim();
  await copy.push({ branch: 'feature' });
  // The fork's branch, also named `feature`, as the host keeps a pull request's head: refs/pull/1/head.
  await copy.git('checkout', '--quiet', 'main');
  await copy.git('checkout', '--quiet', '-b', 'fork-feature');
  await copy.write('from-fork.yaml', configMap('from-fork'));
  forkHead = (await copy.commit('fork feature')).trim();
  await copy.git('push', '--quiet', 'origin', 'HEAD:refs/pull/1/head');

  base = new GitSource({ spec: parseSourceSpec({ name: 'app', url, ref: { branch: 'main' }, intervalMs: 1000 }, 'test'), cacheDir: join(work, 'base') });
  await base.open();
  const keys = new RecordKeys(`fork-${randomUUID().slice(0, 8)}`);
  // What the poller records: the source's applied revision, the preview's base.
  await redis.hset(keys.sourceStatus('app'), { revision: (await base.poll()).revision, polledAt: new Date().toISOString(), state: 'ok' });
  deps = {
    redis, keys, clusters: [],
    sourceFor: (name) => (name === 'app' ? { base, openHead: (ref) => openGitPreviewHead(base, ref, work) } : undefined),
    // No cluster in this test: what is read from Git is the point, no dry-run runs.
    render: { connectionFor: () => { throw new Error('this test previews on no cluster'); }, kinds: createDefaultRegistry(), statusStore: { get: async () => undefined } },
  };
}, 120_000);

afterAll(async () => {
  await base?.close();
  redis?.disconnect();
  await testRedis?.stop();
  await git?.stop();
  await rm(work, { recursive: true, force: true });
});

const job = (extra: Partial<PreviewJob>): PreviewJob => ({ source: 'app', ref: 'feature', trigger: 'webhook', requestedAt: new Date().toISOString(), ...extra });

describe('a pull request preview', () => {
  it('reads the pull request\'s head commit, not the base repository\'s branch of the same name', async () => {
    const report = await runPreviewJob(job({ revision: forkHead, pullRequest: { number: 1 } }), deps);
    expect(report).toMatchObject({ state: 'done', revision: forkHead, pullRequest: { number: 1 } });
    expect(report.revision).not.toBe(baseFeature);
  });

  it('is refused, saying why, when the webhook named no head commit', async () => {
    const report = await runPreviewJob(job({ pullRequest: { number: 1 } }), deps);
    expect(report).toMatchObject({ state: 'failed', error: expect.stringContaining('pull request #1 names no head commit') });
  });

  it('still previews a branch asked for by itself', async () => {
    const report = await runPreviewJob(job({ trigger: 'request' }), deps);
    expect(report).toMatchObject({ state: 'done', revision: baseFeature });
  });
});
