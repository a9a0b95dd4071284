// Notifications end to end on the rig: the real pipeline writes status records to Redis, the
// notifier reads the transitions, BullMQ queues of their own deliver them over real HTTP to a
// loopback receiver that checks the HMAC. Filters, dedup, retry and the canary are checked on
// what the receiver got.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { applyObject } from '@tidemark/cluster';
import { findCondition, RecordKeys } from '@tidemark/contracts';
import { writeClusterHealth } from '@tidemark/cluster-health';
import { NotificationQueues, Notifier, providerWithReaders, SecretText, type NotificationAlert, type NotificationProvider } from '@tidemark/notify';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { startReceiver, type Receiver } from './receiver';

const id = randomUUID().slice(0, 8);
const namespace = `notify-${id}`;
const webAppKey = `tidemark.dev/WebApp/${namespace}/shop`;
const secretKey = `core/Secret/${namespace}/tls`;
const canary = `canary-${randomUUID()}`;
const keys = { '/hook': 'hook-key', '/other': 'other-key', '/flaky': 'flaky-key', '/ops': 'ops-key' };

let harness: PipelineHarness;
let receiver: Receiver;
let queues: NotificationQueues;
let notifier: Notifier;
/** A second replica's notifier on the same records: each transition must still be sent once. */
let replica: Notifier;
let redis: Redis;

const alerts: NotificationAlert[] = [
  { name: 'all-of-test', providers: ['hook'], severity: 'info', sources: ['test'] },
  { name: 'errors', providers: ['slack'], severity: 'error', summary: 'Rig, errors only' },
  { name: 'webapps', providers: ['teams'], severity: 'info', kinds: ['WebApp'] },
  { name: 'other-source', providers: ['other'], severity: 'info', sources: ['infra'] },
  { name: 'secret-failures', providers: ['flaky'], severity: 'error', kinds: ['Secret'] },
  { name: 'clusters', providers: ['ops', 'vault'], severity: 'info', kinds: ['Cluster'] },
];

function provider(name: string, type: NotificationProvider['type'], hmacKey?: string): NotificationProvider {
  return {
    name, type, address: new SecretText(receiver.url(`/${name}`)), ...(hmacKey ? { hmacKey: new SecretText(hmacKey) } : {}),
    timeoutMs: 5_000, rateLimit: { max: 100, durationMs: 1_000 }, retry: { attempts: 5, baseMs: 50 },
  };
}

const webApp = `apiVersion: tidemark.dev/v1alpha1\nkind: WebApp\nmetadata:\n  name: shop\n  namespace: ${namespace}\nspec:\n  image: nginx:1.27\n  replicas: 1\n`;
// A TLS Secret without tls.key: the API server refuses it. Its data holds the canary.
const badSecret = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\n  namespace: ${namespace}\ntype: kubernetes.io/tls\nstringData:\n  tls.crt: ${canary}\n  note: ${canary}\n`;

/** rollOut writes the Deployment's status by hand, as its controller would (the shared plane runs none). */
async function rollOut(name: string): Promise<void> {
  const status = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'by hand' }] };
  await kubectl(inject('kubeconfigPath'), ['patch', 'deployment', name, '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
}

/** settled: every announcement read, and every provider's queue empty. */
async function settled(): Promise<void> {
  await notifier.idle();
  await replica.idle();
  await expect.poll(async () => {
    let unsent = 0;
    for (const name of ['hook', 'slack', 'teams', 'other', 'flaky', 'ops', 'vault']) unsent += await queues.unsent(name);
    return unsent;
  }, { timeout: 30_000 }).toBe(0);
}

const about = (path: string, objectKey: string) => receiver.received(path).filter((request) => (request.body.involvedObject as { objectKey?: string } | undefined)?.objectKey === objectKey);

beforeAll(async () => {
  receiver = await startReceiver(keys);
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  redis = new Redis(inject('redisUrl'));
  queues = new NotificationQueues({
    connection: inject('redisUrl'), prefix: `notify-${id}`,
    providers: [
      provider('hook', 'webhook', keys['/hook']), provider('slack', 'slack'), provider('teams', 'teams'), provider('other', 'webhook', keys['/other']),
      provider('flaky', 'webhook', keys['/flaky']), provider('ops', 'webhook', keys['/ops']),
      // Its address is read from a Kubernetes Secret at each request, as `address: {secretRef}` configures it.
      providerWithReaders({ name: 'vault', type: 'slack', address: { secretRef: { cluster: harness.cluster, namespace, name: 'notify-hooks', key: 'vault-url' } }, timeoutMs: 5_000, rateLimit: { max: 100, durationMs: 1_000 }, retry: { attempts: 5, baseMs: 50 } }, () => harness.connection),
    ],
  });
  await queues.start({ deliver: true });
  const options = {
    redis, prefix: harness.statusStore.keys.prefix, statusStore: harness.statusStore, sink: queues, alerts,
    clusters: [harness.cluster], pollIntervalMs: 200, sweepIntervalMs: 60_000, log: { info: () => undefined, warn: () => undefined },
  };
  notifier = new Notifier(options);
  replica = new Notifier(options);
  await notifier.start();
  await replica.start();
  await harness.repo.write('namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.pushAndReconcile('a namespace');
  await applyObject(harness.connection, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'notify-hooks', namespace }, data: { 'vault-url': Buffer.from(receiver.url('/vault')).toString('base64') } });
});

afterAll(async () => {
  await replica?.stop();
  await notifier?.stop();
  await queues?.close();
  redis?.disconnect();
  await harness?.stop();
  await receiver?.stop();
});

describe('notifications (two notifiers on the same records, as two replicas)', () => {
  it('a WebApp going not Ready then Ready sends exactly two notifications, signed, to the alerts that match', async () => {
    await harness.repo.write('shop.yaml', webApp);
    await harness.pushAndReconcile('add shop');
    expect(findCondition((await harness.statusStore.get(harness.cluster, webAppKey))?.conditions, 'Ready')?.status).toBe('False');
    await expect.poll(() => about('/hook', webAppKey).length, { timeout: 30_000 }).toBe(1);

    await rollOut('shop');
    await expect.poll(async () => {
      await harness.reconcileKey(webAppKey, 'resync');
      return findCondition((await harness.statusStore.get(harness.cluster, webAppKey))?.conditions, 'Ready')?.status;
    }, { timeout: 60_000, interval: 500 }).toBe('True');
    // Ready again and again: the same condition sends nothing more.
    await harness.reconcileKey(webAppKey, 'resync');
    await harness.reconcileKey(webAppKey, 'resync');
    await settled();

    const hook = about('/hook', webAppKey);
    expect(hook.map((request) => [request.body.reason, request.body.severity])).toEqual([['Progressing', 'info'], ['Ready', 'info']]);
    expect(hook.every((request) => request.signed === true && request.answered === 200)).toBe(true);
    expect(hook[0]?.body).toMatchObject({ alert: 'all-of-test', source: 'test', cluster: harness.cluster, involvedObject: { kind: 'WebApp', namespace, name: 'shop' } });
    // Teams (kinds: WebApp) got both; Slack (errors only) and the other source's alert got none.
    const teams = receiver.received('/teams');
    expect(teams).toHaveLength(2);
    expect(teams.map((request) => request.body.type)).toEqual(['message', 'message']);
    expect(receiver.received('/slack')).toHaveLength(0);
    expect(receiver.received('/other')).toHaveLength(0);
  });

  it('a failing Secret is notified once however often it fails, a 500 is retried, and its data never reaches a payload', async () => {
    receiver.answerNext('/flaky', 500);
    await harness.repo.write('tls.yaml', badSecret);
    await harness.pushAndReconcile('a broken TLS secret');
    const record = await harness.statusStore.get(harness.cluster, secretKey);
    expect(findCondition(record?.conditions, 'Ready')?.status).toBe('False');
    await expect.poll(() => receiver.received('/flaky').length, { timeout: 30_000 }).toBe(2);

    // The identical failure again: nothing new is sent.
    await harness.reconcileKey(secretKey, 'resync');
    await harness.reconcileKey(secretKey, 'resync');
    await settled();

    const [failed, retried] = receiver.received('/flaky');
    expect([failed?.answered, retried?.answered]).toEqual([500, 200]);
    expect(retried?.raw).toBe(failed?.raw);
    expect(retried?.signed).toBe(true);
    expect(about('/hook', secretKey)).toHaveLength(1);
    const slack = receiver.received('/slack');
    expect(slack).toHaveLength(1);
    expect(slack[0]?.body).toMatchObject({ text: expect.stringContaining('Secret') });
    const message = about('/hook', secretKey)[0]?.body.message as string;
    expect(message).toMatch(/tls\.key/);

    const base64 = Buffer.from(canary).toString('base64');
    for (const request of receiver.all()) {
      expect(request.raw).not.toContain(canary);
      expect(request.raw).not.toContain(base64);
    }
  });

  it('a cluster going Unavailable and back sends two notifications, and its objects none', async () => {
    const recordKeys = new RecordKeys(harness.statusStore.keys.prefix);
    const before = receiver.all().length;
    const now = () => new Date().toISOString();
    await writeClusterHealth(redis, recordKeys, { cluster: harness.cluster, state: 'Available', since: now(), lastCheck: now(), queuePaused: false });
    await writeClusterHealth(redis, recordKeys, { cluster: harness.cluster, state: 'Unavailable', since: now(), lastCheck: now(), message: 'no answer within 5000 ms', queuePaused: true });
    await expect.poll(() => receiver.received('/ops').length, { timeout: 30_000 }).toBe(1);
    // The objects' records read Ready=Unknown while it is down: that is the cluster's news, not theirs.
    await harness.statusStore.announceCluster(harness.cluster);
    await writeClusterHealth(redis, recordKeys, { cluster: harness.cluster, state: 'Available', since: now(), lastCheck: now(), queuePaused: false });
    await expect.poll(() => receiver.received('/ops').length, { timeout: 30_000 }).toBe(2);
    await harness.statusStore.announceCluster(harness.cluster);
    await settled();

    expect(receiver.received('/ops').map((request) => [request.body.reason, request.body.severity])).toEqual([['ClusterUnavailable', 'error'], ['ClusterAvailable', 'info']]);
    // The provider whose address is in a Secret got both; besides, only Slack (errors) heard of the outage.
    expect(receiver.received('/vault').map((request) => (request.body.blocks as { text?: { text: string } }[])[0]?.text?.text)).toEqual([`[error] ClusterUnavailable: Cluster ${harness.cluster}`, `[info] ClusterAvailable: Cluster ${harness.cluster}`]);
    expect(receiver.all().slice(before).map((request) => request.path).sort()).toEqual(['/ops', '/ops', '/slack', '/vault', '/vault']);
  });
});
