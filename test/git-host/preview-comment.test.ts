// A pull request's preview as one comment, updated (not repeated) on the next preview, against the
// loopback stand-in for Gitea's API (gitea-stand-in.ts: checked against Gitea v1.26.0's OpenAPI
// description; the real Gitea's side is gitea.test.ts). The reconciler's wiring
// (previewComments) reads the token from a file at each comment.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreviewChange, PreviewReport } from '@tidemark/contracts';
import { blastRadius, commentPreview } from '@tidemark/preview';
import { createLogger } from '../../apps/reconciler/src/logger';
import { previewComments } from '@tidemark/preview';
import { startGiteaStandIn, type GiteaStandIn } from './gitea-stand-in';

const token = 'gitea-token-that-must-never-show-0123';
let gitea: GiteaStandIn;
let dir: string;

const change = (extra: Partial<PreviewChange>): PreviewChange => ({ cluster: 'east', objectKey: 'core/ConfigMap/shop/settings', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings', action: 'configured', ...extra });
const report = (changes: PreviewChange[], number = 7): PreviewReport => ({
  source: 'shop', ref: 'feature/bigger', state: 'done', trigger: 'webhook', requestedAt: new Date().toISOString(),
  revision: 'b'.repeat(40), baseRevision: 'a'.repeat(40), pullRequest: { number }, changes, blastRadius: blastRadius(changes),
});

beforeAll(async () => {
  gitea = await startGiteaStandIn(token);
  dir = await mkdtemp(join(tmpdir(), 'tidemark-pr-comment-'));
});
afterAll(async () => {
  await gitea?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the preview comment on a pull request', () => {
  it('is created once, then updated in place by the next preview of the same pull request', async () => {
    gitea.openPullRequest('team', 'shop', 7);
    const target = { provider: 'gitea' as const, apiUrl: gitea.apiUrl, repository: 'team/shop', token };
    const first = await commentPreview(report([change({})]), target, { dashboardUrl: 'https://tidemark.example' });
    expect(first).toMatchObject({ ok: true, action: 'created' });
    let thread = gitea.commentsOf('team', 'shop', 7);
    expect(thread).toHaveLength(1);
    expect(thread[0]!.body).toMatch(/^<!-- tidemark:preview:shop -->\n### Tidemark preview of `feature\/bigger`/);
    expect(thread[0]!.body).toContain('0 created, 1 changed, 0 deleted');
    expect(thread[0]!.body).toContain('(https://tidemark.example/previews/shop/feature/bigger)');
    const second = await commentPreview(report([change({}), change({ name: 'extra', action: 'created' })]), target);
    expect(second).toMatchObject({ ok: true, action: 'updated', commentId: first!.commentId });
    thread = gitea.commentsOf('team', 'shop', 7);
    expect(thread).toHaveLength(1);
    expect(thread[0]!.body).toContain('1 created, 1 changed, 0 deleted');
    expect(gitea.problems).toEqual([]);
  });

  it('leaves a report without a pull request alone, and says why a comment failed without the token', async () => {
    const target = { provider: 'gitea' as const, apiUrl: gitea.apiUrl, repository: 'team/shop', token };
    expect(await commentPreview({ ...report([]), pullRequest: undefined } as unknown as PreviewReport, target)).toBeUndefined();
    const missing = await commentPreview(report([], 99), target, { post: { attempts: 1 } });
    expect(missing).toMatchObject({ ok: false, status: 404 });
    expect(missing!.error).toMatch(/cannot list the pull request's comments/);
    const refused = await commentPreview(report([], 7), { ...target, token: 'wrong-token-of-someone' }, { post: { attempts: 1 } });
    expect(refused).toMatchObject({ ok: false, status: 401 });
    expect(JSON.stringify(refused)).not.toContain('wrong-token-of-someone');
  });

  it('is posted by the reconciler\'s preview worker hook, with the token read from its file', async () => {
    gitea.openPullRequest('team', 'shop', 8);
    await writeFile(join(dir, 'token'), `${token}\n`);
    const hook = previewComments([{
      source: 'shop', provider: 'gitea', apiUrl: gitea.apiUrl, repository: 'team/shop', token: { file: join(dir, 'token') }, context: 'tidemark', pullRequestComments: true,
    }], () => { throw new Error('no cluster is needed for a token file'); }, createLogger('error'))!;
    await hook(report([change({ action: 'deleted' })], 8));
    await hook(report([change({ action: 'deleted' })], 8));
    const thread = gitea.commentsOf('team', 'shop', 8);
    expect(thread).toHaveLength(1);
    expect(thread[0]!.body).toContain('0 created, 0 changed, 1 deleted');
    expect(gitea.problems).toEqual([]);
  });

  it('withholds the comment of a report whose changes come from units with sops files, unless the source is trusted', async () => {
    gitea.openPullRequest('team', 'shop', 9);
    gitea.openPullRequest('team', 'shop', 10);
    await writeFile(join(dir, 'token'), `${token}\n`);
    const host = { source: 'shop', provider: 'gitea' as const, apiUrl: gitea.apiUrl, repository: 'team/shop', token: { file: join(dir, 'token') }, context: 'tidemark', pullRequestComments: true };
    const noCluster = () => { throw new Error('no cluster is needed for a token file'); };
    const sealed = (number: number): PreviewReport => ({ ...report([change({ kind: 'Secret', name: 'db' })], number), decryptedUnits: ['apps/db'] });
    await previewComments([host], noCluster, createLogger('error'))!(sealed(9));
    expect(gitea.commentsOf('team', 'shop', 9)).toHaveLength(0);
    await previewComments([host], noCluster, createLogger('error'), ['shop'])!(sealed(10));
    expect(gitea.commentsOf('team', 'shop', 10)).toHaveLength(1);
  });
});
