// Commit statuses from the reconciler: two reconciler replicas on one Redis apply each pushed commit
// on two real clusters, and the Git host gets one pending and one final status per cluster, never
// more (a pending one that its commit's end overtook is left out); a failing object's reason is the
// failure's description; a host that hangs does not hold up the reconcile; a commit overtaken by a
// newer one before it was applied ends as superseded instead of staying pending. The token comes
// from a Secret on the first cluster. The host is the loopback
// stand-in for Gitea's API (gitea-stand-in.ts, checked against Gitea v1.26.0's OpenAPI description),
// not the real Gitea (gitea.test.ts): these commits live on the rig's Git server, and Gitea keeps a
// status only for a commit of its own repository (test/gitea/README.md).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection } from '@tidemark/cluster';
import { findCondition } from '@tidemark/contracts';
import { sendGithubPush, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startGiteaStandIn, type GiteaStandIn, type StandInStatus } from './gitea-stand-in';


const suffix = randomUUID().slice(0, 8);
const namespace = `gh-${suffix}`;
const prefix = `gitea-status-${suffix}`;
const hookSecret = `hook-${randomUUID()}`;
const token = `gitea-token-${randomUUID()}`;
let gitea: GiteaStandIn;
let git: GitServer;
let repo: WorkingCopy;
let planes: ControlPlane[];
let workDir: string;
const replicas: RunningReconciler[] = [];
// What each replica logged (info and up), printed when a case fails: which replica polled and
// led, what each poll routed, which runs ran at which revision, which statuses went out.
const replicaLogs: string[][] = [[], []];

const configMap = (name: string, value: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { value } });
const statusesOf = (sha: string): StandInStatus[] => gitea.statusesOf('team', 'shop', sha);
const finalStates = (sha: string) => statusesOf(sha).filter((status) => status.state !== 'pending').map((status) => `${status.context}=${status.state}`).sort();
const readyAt = async (cluster: string, key: string, revision: string) => {
  const status = await replicas[0]!.statusStore.get(cluster, key);
  return status?.lastAppliedRevision === revision && findCondition(status.conditions, 'Ready')?.status === 'True';
};

async function pushAndNotify(message: string): Promise<string> {
  const sha = await repo.commitAndPush(message);
  expect(await sendGithubPush(`http://${replicas[0]!.http.address}/hooks/shop`, hookSecret)).toBe(202);
  return sha;
}

beforeAll(async () => {
  [gitea, git, planes] = await Promise.all([startGiteaStandIn(token), startGitServer(), startControlPlanes(2, 'git-host-status')]);
  const url = await git.createRepository('shop');
  repo = await git.workingCopy('shop');
  await repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await repo.write('settings.yaml', configMap('settings', 'one'));
  await repo.commitAndPush('first');
  // The token lives in a Secret on the first cluster, never in the config file.
  const east = ClusterConnection.connect({ cluster: 'east', kubeconfig: planes[0]!.kubeconfig });
  await applyObject(east, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tidemark-tokens' } });
  await applyObject(east, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gitea', namespace: 'tidemark-tokens' }, data: { token: Buffer.from(token).toString('base64') } });
  east.close();
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-gitea-status-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'shop', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: [{ name: 'east', kubeconfig: planes[0]!.kubeconfigPath }, { name: 'west', kubeconfig: planes[1]!.kubeconfigPath }],
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'shop', provider: 'github', secret: { env: 'HOOK_SECRET' } }],
    workers: { concurrency: 2 },
    gitHosts: [{ source: 'shop', provider: 'gitea', apiUrl: gitea.apiUrl, repository: 'team/shop', token: { secretRef: { namespace: 'tidemark-tokens', name: 'gitea' } }, dashboardUrl: 'https://tidemark.example' }],
  }));
  // Two replicas: each state must still reach Gitea once per cluster.
  for (let replica = 0; replica < 2; replica += 1) {
    const log = replicaLogs[replica]!;
    const destination = { write: (line: string) => { log.push(line.trimEnd()); if (log.length > 2_000) log.splice(0, 500); } };
    replicas.push(await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), HOOK_SECRET: hookSecret }), createLogger('info', destination)));
  }
}, 600_000);

beforeEach(({ onTestFailed }) => {
  for (const log of replicaLogs) log.length = 0;
  onTestFailed(() => {
    for (const [index, log] of replicaLogs.entries()) {
      const seen = log.filter((line) => /poll|commit status|reconcile finished|lease|leader/.test(line)).slice(-80);
      console.error(`replica ${index} saw:\n${seen.join('\n')}`);
    }
  });
});

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await gitea?.stop();
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('commit statuses on the Git host', () => {
  it('gives each applied commit one pending and one success per cluster, linking to the dashboard', async () => {
    const sha = await pushAndNotify('settings: two');
    await repo.write('settings.yaml', configMap('settings', 'two'));
    const changed = await pushAndNotify('settings: two, really');
    for (const commit of [changed]) {
      await expect.poll(() => finalStates(commit), { timeout: 90_000, interval: 500 }).toEqual(['tidemark/east=success', 'tidemark/west=success']);
    }
    const all = statusesOf(changed);
    // Per cluster, in the order they arrived: pending then success, never more, although two
    // replicas ran the jobs. A pending status still queued when the commit finished on that
    // cluster is left out (it would arrive after success and hide it), so success alone is right too.
    for (const cluster of ['east', 'west']) {
      const arrived = all.filter((status) => status.context === `tidemark/${cluster}`).reverse().map((status) => status.state);
      expect([['pending', 'success'], ['success']], `${cluster}: ${arrived.join(', ')}`).toContainEqual(arrived);
    }
    expect(all.filter((status) => status.state === 'pending').length, 'at least one cluster saw pending first').toBeGreaterThan(0);
    const success = all.find((status) => status.context === 'tidemark/east' && status.state === 'success')!;
    expect(success.description).toBe('1 object applied and Ready on east');
    expect(success.target_url).toBe('https://tidemark.example/objects?source=shop&cluster=east');
    // The empty commit before it changed nothing on any cluster: it gets no status.
    expect(statusesOf(sha)).toEqual([]);
    expect(gitea.problems).toEqual([]);
  });

  it('gives failure with the first reason when an object of the commit is refused', async () => {
    await repo.write('api.yaml', stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace },
      spec: { replicas: -1, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'api', image: 'registry.example/api:1' }] } } },
    }));
    const sha = await pushAndNotify('api: an invalid replica count');
    await expect.poll(() => finalStates(sha), { timeout: 90_000, interval: 500 }).toEqual(['tidemark/east=failure', 'tidemark/west=failure']);
    const failure = statusesOf(sha).find((status) => status.state === 'failure')!;
    expect(failure.description).toMatch(/spec\.replicas/);
    expect(failure.description).not.toContain(token);
  });

  it('does not wait for a host that hangs: the commit is applied, and its statuses follow once Gitea answers', async () => {
    await repo.delete('api.yaml');
    await repo.write('settings.yaml', configMap('settings', 'three'));
    gitea.pause();
    let sha = '';
    try {
      sha = await pushAndNotify('settings: three, while the host hangs');
      for (const cluster of ['east', 'west']) {
        await expect.poll(() => readyAt(cluster, `core/ConfigMap/${namespace}/settings`, sha), { timeout: 30_000, interval: 200 }).toBe(true);
      }
      // Nothing reached the host while it hung: the commit was applied without it.
      expect(statusesOf(sha)).toEqual([]);
    } finally {
      gitea.resume();
    }
    await expect.poll(() => finalStates(sha), { timeout: 120_000, interval: 500 }).toEqual(['tidemark/east=success', 'tidemark/west=success']);
  });

  it('ends a commit that a newer one overtook before it was applied: superseded (Gitea: warning), once per cluster', async () => {
    // No controller runs in the rig, so the Deployment never becomes available: its commit stays pending.
    const deployment = (image: string) => stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } },
    });
    const pendingOn = (sha: string) => statusesOf(sha).filter((status) => status.state === 'pending').map((status) => status.context).sort();
    await repo.write('web.yaml', deployment('registry.example/web:1'));
    const rolling = await pushAndNotify('web: 1');
    await expect.poll(() => pendingOn(rolling), { timeout: 90_000, interval: 500 }).toEqual(['tidemark/east', 'tidemark/west']);
    // The next commit changes the same Deployment: its job now runs at the newer revision.
    await repo.write('web.yaml', deployment('registry.example/web:2'));
    const overtaking = await pushAndNotify('web: 2');
    await expect.poll(() => finalStates(rolling), { timeout: 90_000, interval: 500 }).toEqual(['tidemark/east=warning', 'tidemark/west=warning']);
    const east = statusesOf(rolling).find((status) => status.context === 'tidemark/east' && status.state === 'warning')!;
    expect(east.description).toBe(`Superseded by ${overtaking.slice(0, 7)} before it was applied on east`);
    // A third commit removes the Deployment: the second is superseded in turn, the third ends in success.
    await repo.delete('web.yaml');
    const removing = await pushAndNotify('web: removed');
    await expect.poll(() => finalStates(removing), { timeout: 90_000, interval: 500 }).toEqual(['tidemark/east=success', 'tidemark/west=success']);
    await expect.poll(() => finalStates(overtaking), { timeout: 30_000, interval: 500 }).toEqual(['tidemark/east=warning', 'tidemark/west=warning']);
    // Two replicas: each overtaken commit has exactly one final status per cluster, and nothing after it.
    for (const sha of [rolling, overtaking]) {
      for (const cluster of ['east', 'west']) {
        const arrived = statusesOf(sha).filter((status) => status.context === `tidemark/${cluster}`).reverse().map((status) => status.state);
        expect([['pending', 'warning'], ['warning']], `${sha.slice(0, 7)} on ${cluster}: ${arrived.join(', ')}`).toContainEqual(arrived);
      }
    }
    expect(gitea.problems).toEqual([]);
  }, 400_000);
});
