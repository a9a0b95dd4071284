// Commit statuses and pull-request comments against the real, pinned Gitea (test/gitea, v1.26.0,
// built by scripts/setup and started by the rig's startGitea): real commits pushed to it and a real
// pull request opened with POST /repos/{owner}/{repo}/pulls. What Gitea cannot be made to do on demand
// (answer 429 or 503, break its own API description) stays with the loopback receivers of
// commit-status.test.ts and the stand-in (gitea-stand-in.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreviewChange, PreviewReport } from '@tidemark/contracts';
import { postCommitStatus, type GitHostTarget } from '@tidemark/git-host';
import { blastRadius, commentPreview } from '@tidemark/preview';
import { buildGitea, startGitea, type GiteaRepository, type TestGitea, type WorkingCopy } from '@tidemark/testing';

interface GiteaStatus { id: number; status: string; context: string; description: string; target_url: string }
interface GiteaComment { id: number; body: string; user: { login: string } }

let gitea: TestGitea;
let repository: GiteaRepository;
let copy: WorkingCopy;
let head = '';
let pullNumber = 0;

const target = (token = gitea.admin.token): GitHostTarget => ({ provider: 'gitea', apiUrl: gitea.apiUrl, repository: `${repository.owner}/${repository.name}`, token });
const repoPath = () => `/repos/${repository.owner}/${repository.name}`;
/** statusesInOrder lists a commit's statuses as Gitea stored them, first posted first (by id). */
const statusesInOrder = async (sha: string) => (await gitea.api<GiteaStatus[]>('GET', `${repoPath()}/statuses/${sha}?limit=50`)).sort((a, b) => a.id - b.id);
const comments = () => gitea.api<GiteaComment[]>('GET', `${repoPath()}/issues/${pullNumber}/comments`);
const change = (extra: Partial<PreviewChange>): PreviewChange => ({ cluster: 'east', objectKey: 'core/ConfigMap/shop/settings', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings', action: 'configured', ...extra });
const report = (changes: PreviewChange[]): PreviewReport => ({
  source: 'shop', ref: 'bigger', state: 'done', trigger: 'webhook', requestedAt: new Date().toISOString(),
  revision: head, baseRevision: 'a'.repeat(40), pullRequest: { number: pullNumber }, changes, blastRadius: blastRadius(changes),
});

beforeAll(async () => {
  await buildGitea();
  gitea = await startGitea();
  repository = await gitea.createRepository('shop');
  copy = await gitea.workingCopy(repository);
  await copy.write('settings.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings, namespace: shop }\ndata: { size: S }\n');
  await copy.commitAndPush('first');
  await copy.git('checkout', '--quiet', '-b', 'bigger');
  await copy.write('settings.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings, namespace: shop }\ndata: { size: L }\n');
  head = await copy.commit('settings: bigger');
  await copy.push({ branch: 'bigger' });
  pullNumber = (await gitea.api<{ number: number }>('POST', `${repoPath()}/pulls`, { title: 'Bigger settings', head: 'bigger', base: 'main' })).number;
}, 900_000);

afterAll(async () => {
  await gitea?.stop();
});

describe('the real Gitea', () => {
  it('takes every state Tidemark sends, superseded as warning, with its context, description and link', async () => {
    for (const state of ['pending', 'success', 'failure', 'error', 'superseded'] as const) {
      const result = await postCommitStatus(target(), { sha: head, state, context: 'tidemark/east', description: `${state} on east`, targetUrl: 'https://tidemark.example/objects?cluster=east' });
      expect(result, state).toMatchObject({ ok: true, status: 201 });
    }
    const stored = await statusesInOrder(head);
    expect(stored.map((status) => [status.status, status.context, status.description])).toEqual([
      ['pending', 'tidemark/east', 'pending on east'], ['success', 'tidemark/east', 'success on east'], ['failure', 'tidemark/east', 'failure on east'],
      ['error', 'tidemark/east', 'error on east'], ['warning', 'tidemark/east', 'superseded on east'],
    ]);
    expect(stored[0]!.target_url).toBe('https://tidemark.example/objects?cluster=east');
  });

  it('refuses a commit it does not hold and a wrong token, and the result never names the token', async () => {
    const unknown = await postCommitStatus(target(), { sha: 'f'.repeat(40), state: 'pending', context: 'tidemark/east', description: 'x' }, { attempts: 1 });
    expect(unknown.ok).toBe(false);
    const refused = await postCommitStatus(target('0'.repeat(40)), { sha: head, state: 'pending', context: 'tidemark/east', description: 'x' }, { attempts: 1 });
    expect(refused).toMatchObject({ ok: false, status: 401 });
    expect(JSON.stringify([unknown, refused])).not.toContain(gitea.admin.token);
  });

  it('keeps one preview comment on a real pull request: created once, then edited in place', async () => {
    const first = await commentPreview(report([change({})]), target(), { dashboardUrl: 'https://tidemark.example' });
    expect(first).toMatchObject({ ok: true, action: 'created' });
    let thread = await comments();
    expect(thread).toHaveLength(1);
    expect(thread[0]!.body).toMatch(/^<!-- tidemark:preview:shop -->\n### Tidemark preview of `bigger`/);
    expect(thread[0]!.body).toContain('0 created, 1 changed, 0 deleted');
    expect(thread[0]!.user.login).toBe(gitea.admin.username);
    const second = await commentPreview(report([change({}), change({ name: 'extra', action: 'created' })]), target());
    expect(second).toMatchObject({ ok: true, action: 'updated', commentId: first!.commentId });
    thread = await comments();
    expect(thread).toHaveLength(1);
    expect(thread[0]!.body).toContain('1 created, 1 changed, 0 deleted');
  });

  it('says why a comment on a pull request that does not exist failed', async () => {
    // Gitea v1.26.0 answers this listing with HTTP 500 (seen here), not 404: Tidemark retries it as a server error, then gives up.
    const missing = await commentPreview({ ...report([]), pullRequest: { number: 999 } }, target(), { post: { attempts: 2, baseDelayMs: 10 } });
    expect(missing).toMatchObject({ ok: false, attempts: 2 });
    expect(missing!.status).toBeGreaterThanOrEqual(400);
    expect(missing!.error).toMatch(/cannot list the pull request's comments/);
  });
});
