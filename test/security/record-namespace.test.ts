// Issue 34, item 18: a status record is Redis content, not Git. Rewriting its namespace must not move
// an object Git declares without one: Git and discovery alone decide where it is applied.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { getObject } from '@tidemark/cluster';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const id = randomUUID().slice(0, 8);
const victim = `victim-${id}`;
const name = `steered-${id}`;
const objectKey = `core/ConfigMap/_/${name}`;
let harness: PipelineHarness;
let redis: Redis;

const configMap = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: ${value}\n`;

/** statusHashHolding finds, with redis commands only, the status hash that holds the object's record. */
async function statusHashHolding(key: string): Promise<string> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*:status:${harness.cluster}`, 'COUNT', 1000);
    for (const candidate of keys) if (await redis.hexists(candidate, key)) return candidate;
    cursor = next;
  } while (cursor !== '0');
  throw new Error(`no status record holds ${key}`);
}

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  redis = new Redis(inject('redisUrl'));
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', victim]);
});
afterAll(async () => {
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', victim, '--wait=false']).catch(() => undefined);
  await kubectl(inject('kubeconfigPath'), ['delete', 'configmap', name, '-n', 'default', '--ignore-not-found']).catch(() => undefined);
  redis?.disconnect();
  await harness?.stop();
});

describe('a namespace-less object', () => {
  it('stays in the default namespace when its status record is rewritten to name another', async () => {
    await harness.repo.write('cm.yaml', configMap('one'));
    await harness.pushAndReconcile('a ConfigMap without a namespace');
    expect((await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name }))?.data).toEqual({ a: 'one' });

    const hash = await statusHashHolding(objectKey);
    const record = JSON.parse((await redis.hget(hash, objectKey))!) as Record<string, unknown>;
    expect(record.namespace).toBe('default');
    await redis.hset(hash, objectKey, JSON.stringify({ ...record, namespace: victim }));

    await harness.repo.write('cm.yaml', configMap('two'));
    await harness.pushAndReconcile('change it');
    expect(await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace: victim, name })).toBeUndefined();
    expect((await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name }))?.data).toEqual({ a: 'two' });
  });
});
