// A pull request's preview end to end, on the real pinned Gitea (test/gitea): Gitea itself sends its
// signed webhooks to the reconciler (a webhook of type gitea with a secret, made through its API), the
// pull request is a real one (POST /repos/{owner}/{repo}/pulls), the preview job renders its branch
// from Gitea and dry-runs it against the rig's live kube-apiserver, and the pull request gets exactly
// one comment; a second push to the branch (Gitea sends `push`, then `pull_request` `synchronized`)
// updates that comment in place. Nothing is written to the cluster.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { buildGitea, startGitea, type GiteaRepository, type TestGitea, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

interface GiteaComment { id: number; body: string }

const suffix = randomUUID().slice(0, 8);
const namespace = `pr-${suffix}`;
const hookSecret = `hook-${randomUUID()}`;
let gitea: TestGitea;
let repository: GiteaRepository;
let repo: WorkingCopy;
let reconciler: RunningReconciler;
let workDir: string;
let pullNumber = 0;

const configMap = (name: string, value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { value } });
const repoPath = () => `/repos/${repository.owner}/${repository.name}`;
const thread = () => gitea.api<GiteaComment[]>('GET', `${repoPath()}/issues/${pullNumber}/comments`);
const mentions = async (sha: string) => (await thread()).map((comment) => comment.body.includes(`Commit \`${sha.slice(0, 12)}\``));

beforeAll(async () => {
  await buildGitea();
  gitea = await startGitea();
  repository = await gitea.createRepository('shop');
  repo = await gitea.workingCopy(repository);
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('settings.yaml', configMap('settings', 'one'));
  await repo.commitAndPush('first');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-pr-preview-'));
  await writeFile(join(workDir, 'gitea-token'), `${gitea.admin.token}\n`);
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix: `pr-preview-${suffix}` },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'shop', url: repository.cloneUrl, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: [{ name: 'live', kubeconfig: inject('kubeconfigPath') }],
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'shop', provider: 'gitea', secret: { env: 'HOOK_SECRET' } }],
    gitHosts: [{ source: 'shop', provider: 'gitea', apiUrl: gitea.apiUrl, repository: `${repository.owner}/${repository.name}`, token: { file: join(workDir, 'gitea-token') }, dashboardUrl: 'https://tidemark.example' }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), HOOK_SECRET: hookSecret }), createLogger('error'));
  // Gitea signs each delivery with the secret (X-Gitea-Signature) and posts it to the reconciler.
  await gitea.api('POST', `${repoPath()}/hooks`, {
    type: 'gitea', active: true, events: ['push', 'pull_request'],
    config: { url: `http://${reconciler.http.address}/hooks/shop`, content_type: 'json', secret: hookSecret },
  });
}, 900_000);

afterAll(async () => {
  await reconciler?.stop();
  await gitea?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('webhook → preview → pull-request comment, with Gitea', () => {
  it('comments once on a pull request Gitea announces, and updates that comment after a second push', async () => {
    // main is applied first: the preview compares the branch with it, on the live cluster.
    const main = (await repo.git('rev-parse', 'HEAD')).trim();
    await expect.poll(async () => {
      const status = await reconciler.statusStore.get('live', `core/ConfigMap/${namespace}/settings`);
      return status?.lastAppliedRevision === main && findCondition(status.conditions, 'Ready')?.status === 'True';
    }, { timeout: 120_000, interval: 500 }).toBe(true);

    await repo.git('checkout', '--quiet', '-b', 'settings-two');
    await repo.write('settings.yaml', configMap('settings', 'two'));
    const first = await repo.commit('settings: two');
    await repo.push({ branch: 'settings-two' });
    pullNumber = (await gitea.api<{ number: number }>('POST', `${repoPath()}/pulls`, { title: 'Settings: two', head: 'settings-two', base: 'main' })).number;
    await expect.poll(() => mentions(first), { timeout: 180_000, interval: 1_000 }).toEqual([true]);
    const [comment] = await thread();
    expect(comment!.body).toContain('**0 created, 1 changed, 0 deleted, 0 invalid** on 1 cluster(s): `live`');
    expect(comment!.body).toContain('/data/value: "one" → "two"');

    // A second push to the pull request's branch: the same comment changes, no second one appears.
    await repo.write('extra.yaml', configMap('extra', 'new'));
    const second = await repo.commit('extra');
    await repo.push({ branch: 'settings-two' });
    await expect.poll(() => mentions(second), { timeout: 180_000, interval: 1_000 }).toEqual([true]);
    const [updated] = await thread();
    expect(updated!.id).toBe(comment!.id);
    expect(updated!.body).toContain('**1 created, 1 changed, 0 deleted, 0 invalid**');
    expect(updated!.body).not.toContain(gitea.admin.token);

    // The preview wrote nothing: the live ConfigMap still holds main's value, the new one does not exist.
    const live = ClusterConnection.connect({ cluster: 'live', kubeconfig: inject('kubeconfig') });
    try {
      expect(await getObject(live, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })).toMatchObject({ data: { value: 'one' } });
      expect(await getObject(live, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'extra' })).toBeUndefined();
    } finally {
      live.close();
    }
  }, 600_000);
});
