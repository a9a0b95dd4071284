// Helpers of the two-tenant suite: a tenant (namespace, ServiceAccount limited to it, its own age key
// in a Secret opted in for its Source), an HTTP server that records what reaches it, and the
// status-record lookup that needs Redis commands only, as the per-item tests do them.
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { applyObject, type ClusterConnection } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { kubectl, run } from '@tidemark/testing';
import type { Tools } from '../../render/render-fixture';

export interface AgeKey {
  file: string;
  recipient: string;
}

/** newAgeKey writes an age identity file under `dir` and returns its public recipient. */
export async function newAgeKey(tools: Tools, dir: string, name: string): Promise<AgeKey> {
  const file = join(dir, `${name}.agekey`);
  await run(tools.ageKeygen, ['-o', file]);
  return { file, recipient: (await run(tools.ageKeygen, ['-y', file])).trim() };
}

/** sopsEncrypt encrypts a manifest's data and stringData for `recipient`. */
export async function sopsEncrypt(tools: Tools, dir: string, recipient: string, plainFile: string): Promise<string> {
  return run(tools.sops, ['--encrypt', '--age', recipient, '--encrypted-regex', '^(data|stringData)$', plainFile], { env: { PATH: process.env.PATH ?? '', HOME: dir } });
}

/**
 * createTenant makes a namespace with ServiceAccount `deployer`, which may do anything in that
 * namespace and nothing outside it, and Secret `sops-keys` holding the team's age key, opted in for
 * the team's Source `sourceName`.
 */
export async function createTenant(admin: ClusterConnection, kubeconfigPath: string, namespace: string, key: AgeKey, sourceName: string): Promise<void> {
  await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'deployer', namespace } };
  await applyObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace } });
  await applyObject(admin, { ...rbac, kind: 'Role', rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] } as KubernetesManifest);
  await applyObject(admin, { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' }, subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace }] } as KubernetesManifest);
  await applyObject(admin, {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sops-keys', namespace, labels: { 'tidemark.dev/source': sourceName } },
    data: { 'identity.agekey': Buffer.from(await readFile(key.file, 'utf8')).toString('base64') },
  } as KubernetesManifest);
}

export interface RecordingServer {
  url: string;
  /** Every request that reached it: path and headers. */
  requests: { url: string; headers: IncomingHttpHeaders }[];
  close(): void;
}

/** startRecordingServer serves `handler` on a loopback port and records every request first. */
export async function startRecordingServer(handler: RequestListener): Promise<RecordingServer> {
  const requests: RecordingServer['requests'] = [];
  const server: Server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** statusHashHolding finds, with redis commands only, the status hash under `prefix` that holds an object's record. */
export async function statusHashHolding(redis: Redis, prefix: string, cluster: string, objectKey: string): Promise<string> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*:status:${cluster}`, 'COUNT', 1000);
    for (const candidate of keys) if (await redis.hexists(candidate, objectKey)) return candidate;
    cursor = next;
  } while (cursor !== '0');
  throw new Error(`no status record holds ${objectKey}`);
}
