// A new revision cancels a health wait in progress at once. The rig runs no controllers, so a
// Deployment is applied and never Available: it waits for health, requeued after
// progressingRequeueMs, here ten minutes (as are the resync and the dependency recheck). So a run at
// the next revision within this test can only have come from the new revision itself, not from a
// requeue: the order of the object's runs shows it (each earlier revision's runs all progressing,
// then the new revision's), and a dependent waiting on it is judged again at the same moment.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { findCondition } from '@tidemark/contracts';
import { kubectl } from '@tidemark/testing';
import { startOrderingStack, type OrderingStack } from './ordering-stack';

const tag = randomUUID().slice(0, 6);
const namespace = `hwait-${tag}`;
const deploymentKey = `apps/Deployment/${namespace}/web`;
const dependentKey = `core/ConfigMap/${namespace}/web-settings`;
const tenMinutes = 600_000;
let stack: OrderingStack;

const deployment = (image: string) => stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } },
});
const dependent = (on?: string) => stringify({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-settings', namespace, ...(on ? { annotations: { 'tidemark.dev/depends-on': on } } : {}) }, data: { on: on ?? 'nothing' },
});

async function readyCondition(key: string): Promise<string | undefined> {
  const condition = findCondition((await stack.status(key))?.conditions, 'Ready');
  return condition ? `${condition.status} ${condition.reason}` : undefined;
}

/** runs lists the object's runs oldest first, one `revision result` per run (repeats spelt out). */
async function runs(key: string): Promise<string[]> {
  const history = await stack.reconciler.statusStore.history(stack.cluster, key);
  return history.reverse().flatMap((entry) => Array.from({ length: entry.repeats ?? 1 }, () => `${entry.revision.slice(0, 12)} ${entry.result}`));
}

beforeAll(async () => {
  stack = await startOrderingStack({
    kubeconfigPath: inject('kubeconfigPath'), kubeconfig: inject('kubeconfig'), redisUrl: inject('redisUrl'),
    dependencyRecheckMs: tenMinutes,
    config: { progressingRequeueMs: tenMinutes, resyncIntervalMs: tenMinutes, fullResyncIntervalMs: tenMinutes },
  });
});
afterAll(async () => {
  await stack?.stop();
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
});

describe('a health wait', () => {
  it('is cancelled by a new revision at once: the object and what waits on it run at the new revision, not at the requeue', async () => {
    await stack.repo.write('namespace.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
    await stack.repo.write('web.yaml', deployment('nginx:1.27'));
    await stack.repo.write('settings.yaml', dependent(`apps/Deployment/${namespace}/web`));
    const first = await stack.repo.commitAndPush('a Deployment that never becomes Available here, and a ConfigMap waiting on it');
    await expect.poll(() => readyCondition(deploymentKey), { timeout: 60_000, interval: 200 }).toBe('False HealthCheckPending');
    await expect.poll(() => readyCondition(dependentKey), { timeout: 60_000, interval: 200 }).toBe('False DependencyNotReady');
    expect((await stack.status(deploymentKey))?.lastAttemptedRevision).toBe(first);

    // The Deployment changes, and the ConfigMap stops waiting on it: both are news of the revision.
    await stack.repo.write('web.yaml', deployment('nginx:1.28'));
    await stack.repo.write('settings.yaml', dependent());
    const second = await stack.repo.commitAndPush('a new image, and the ConfigMap depends on nothing');
    await expect.poll(() => stack.status(deploymentKey).then((record) => record?.lastAttemptedRevision), { timeout: 60_000, interval: 200 }).toBe(second);
    await expect.poll(() => stack.readyAt(dependentKey, second), { timeout: 60_000, interval: 200 }).toBe(true);

    // The runs at the first revision (maybe one waiting for the Namespace) ended waiting for health;
    // the next run was the new revision's.
    const order = await runs(deploymentKey);
    const firstRuns = order.filter((run) => run.startsWith(first.slice(0, 12)));
    expect(firstRuns.at(-1)).toBe(`${first.slice(0, 12)} progressing`);
    expect(firstRuns.filter((run) => !/ (progressing|waiting)$/.test(run))).toEqual([]);
    expect(order.findIndex((run) => run.startsWith(second.slice(0, 12)))).toBe(firstRuns.length);
    expect(order.at(-1)).toBe(`${second.slice(0, 12)} progressing`);
    expect((await runs(dependentKey)).filter((run) => run.startsWith(first.slice(0, 12)))).not.toContain(`${first.slice(0, 12)} succeeded`);
  });
});
