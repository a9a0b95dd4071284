// How many requests one WebApp costs the API server, counted as the real server answered them:
// first creation says what it did in one Event and writes status once; an unchanged resync writes
// nothing, says nothing, and never dry-runs the CR twice.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `requests-${randomUUID().slice(0, 8)}`;
const key = `tidemark.dev/WebApp/${namespace}/shop`;
let harness: PipelineHarness;
let counting = false;
const requests: { method: string; path: string; apply: boolean; dryRun: boolean }[] = [];

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), {
    onResponse: (event) => { if (counting) requests.push(event); },
  });
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.pushAndReconcile('a namespace');
});
afterAll(async () => {
  await harness?.stop();
});

/** counted runs `work` and returns the requests it sent, by what they were. */
async function counted(work: () => Promise<unknown>): Promise<{ events: number; statusWrites: number; crDryRuns: number; dryRuns: number; all: number }> {
  requests.length = 0;
  counting = true;
  try {
    await work();
  } finally {
    counting = false;
  }
  const isCr = (path: string) => path.includes('/webapps/');
  return {
    events: requests.filter((request) => request.method === 'POST' && request.path.endsWith('/events')).length,
    statusWrites: requests.filter((request) => request.apply && !request.dryRun && request.path.endsWith('/status')).length,
    crDryRuns: requests.filter((request) => request.dryRun && isCr(request.path)).length,
    dryRuns: requests.filter((request) => request.dryRun).length,
    all: requests.length,
  };
}

describe('requests per WebApp', () => {
  it('first creation: one aggregated Event, one status write, one dry-run of the CR', async () => {
    await harness.repo.write('shop.yaml', `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n  image: nginx:1.27\n  replicas: 1\n`);
    const created = await counted(() => harness.pushAndReconcile('add shop'));
    expect(created.events).toBe(1);
    expect(created.statusWrites).toBe(1);
    expect(created.crDryRuns).toBe(1);
    const events = await harness.connection.client.request<{ items: { reason: string; message: string }[] }>({
      method: 'GET', path: `/api/v1/namespaces/${namespace}/events`, what: 'list events',
    });
    const about = events.items.filter((event) => event.message.includes(`WebApp ${namespace}/shop`) || event.message.includes(`${namespace}/shop created`));
    expect(about).toHaveLength(1);
    expect(about[0]!.message.split('\n').length).toBeGreaterThan(1);
  });

  it('an unchanged resync writes no status, records no Event and dry-runs the CR once at most', async () => {
    // The first resync after creation still writes status once: its message now says "unchanged".
    await harness.reconcileKey(key, 'resync');
    const resync = await counted(() => harness.reconcileKey(key, 'resync'));
    expect(resync.events).toBe(0);
    expect(resync.statusWrites).toBe(0);
    expect(resync.crDryRuns).toBeLessThanOrEqual(1);
  });
});
