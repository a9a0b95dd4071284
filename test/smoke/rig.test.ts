// The smoke suite proves the rig: each step runs against the real thing.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fs from 'node:fs';
import https from 'node:https';
import http from 'isomorphic-git/http/node';
import git from 'isomorphic-git';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { kubectl, startGitServer, type GitServer } from '@tidemark/testing';

const suffix = randomUUID().slice(0, 8);

describe('kube-apiserver from the rig', () => {
  const kubeconfig = new KubeConfig();
  let api: KubernetesObjectApi;
  const namespace = `smoke-${suffix}`;

  beforeAll(async () => {
    kubeconfig.loadFromString(inject('kubeconfig'));
    api = KubernetesObjectApi.makeApiClient(kubeconfig);
    await api.patch({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, undefined, undefined, 'smoke', true, PatchStrategy.ServerSideApply);
  });

  it('server-side applies a ConfigMap and reads it back with its managedFields', async () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace }, data: { greeting: 'hello' } };
    await api.patch(configMap, undefined, undefined, 'tidemark-smoke', true, PatchStrategy.ServerSideApply);
    const live = await api.read<KubernetesObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace } });
    expect(live.data).toEqual({ greeting: 'hello' });
    const managers = (live.metadata?.managedFields ?? []).map((entry) => [entry.manager, entry.operation]);
    expect(managers).toContainEqual(['tidemark-smoke', 'Apply']);
  });

  it('creates a CRD that becomes Established, applies a CR of it and patches its /status', async () => {
    const group = `smoke${suffix}.tidemark.dev`;
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget' },
        versions: [{
          name: 'v1', served: true, storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: {
            spec: { type: 'object', properties: { size: { type: 'integer' } } },
            status: { type: 'object', properties: { phase: { type: 'string' } } },
          } } },
        }],
      },
    };
    await api.patch(crd, undefined, undefined, 'tidemark-smoke', true, PatchStrategy.ServerSideApply);
    await expect.poll(async () => {
      const live = await api.read<KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } }>({ apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: crd.metadata.name } });
      return live.status?.conditions?.find((condition) => condition.type === 'Established')?.status;
    }, { timeout: 30_000, interval: 200 }).toBe('True');

    const widget = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1', namespace }, spec: { size: 3 } };
    await expect.poll(async () => {
      try {
        await api.patch(widget, undefined, undefined, 'tidemark-smoke', true, PatchStrategy.ServerSideApply);
        return 'applied';
      } catch (error) {
        return String(error);
      }
    }, { timeout: 30_000, interval: 300 }).toBe('applied');

    const path = `/apis/${group}/v1/namespaces/${namespace}/widgets/w1/status`;
    const statusPatch = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1', namespace }, status: { phase: 'Ready' } };
    await rawApply(kubeconfig, path, statusPatch);
    const output = await kubectl(inject('kubeconfigPath'), ['get', `widgets.${group}`, 'w1', '-n', namespace, '-o', 'jsonpath={.status.phase}/{.spec.size}']);
    expect(output).toBe('Ready/3');
  });
});

describe('Redis from the rig', () => {
  it('round-trips a BullMQ job', async () => {
    const connection = { url: inject('redisUrl') };
    const name = `smoke-${suffix}`;
    const queue = new Queue(name, { connection });
    const events = new QueueEvents(name, { connection });
    const worker = new Worker(name, async (job) => ({ doubled: (job.data as { n: number }).n * 2 }), { connection });
    try {
      await events.waitUntilReady();
      const job = await queue.add('double', { n: 21 });
      expect(await job.waitUntilFinished(events, 10_000)).toEqual({ doubled: 42 });
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});

describe('Git over smart HTTP from the rig', () => {
  let server: GitServer;
  let cacheDir: string;

  beforeAll(async () => {
    server = await startGitServer({ basicAuth: { username: 'tidemark', password: `pw-${suffix}` } });
    cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-smoke-clone-'));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('accepts a real git push that isomorphic-git then fetches at the pushed commit', async () => {
    const url = await server.createRepository('smoke');
    const copy = await server.workingCopy('smoke');
    await copy.write('manifests/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-git\n');
    const pushed = await copy.commitAndPush('add a ConfigMap');

    const onAuth = () => ({ username: 'tidemark', password: `pw-${suffix}` });
    await git.init({ fs, dir: cacheDir, bare: true });
    await git.addRemote({ fs, dir: cacheDir, remote: 'origin', url });
    const result = await git.fetch({ fs, http, dir: cacheDir, remote: 'origin', ref: 'main', singleBranch: true, onAuth });
    expect(result.fetchHead).toBe(pushed);
    const { blob } = await git.readBlob({ fs, dir: cacheDir, oid: pushed, filepath: 'manifests/cm.yaml' });
    expect(Buffer.from(blob).toString()).toContain('name: from-git');

    await expect(git.getRemoteInfo({ http, url })).rejects.toThrow(/401/);
  });
});

async function rawApply(kubeconfig: KubeConfig, path: string, body: unknown): Promise<void> {
  const server = new URL(kubeconfig.getCurrentCluster()?.server ?? '');
  const options: https.RequestOptions = {
    hostname: server.hostname,
    port: server.port,
    path: `${path}?fieldManager=tidemark-smoke&force=true`,
    method: 'PATCH',
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  };
  await kubeconfig.applyToHTTPSOptions(options);
  await new Promise<void>((resolve, reject) => {
    const request = https.request(options, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => ((response.statusCode ?? 500) < 300 ? resolve() : reject(new Error(`PATCH ${path}: ${response.statusCode} ${text}`))));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
