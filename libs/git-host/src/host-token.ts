import { readFile } from 'node:fs/promises';
import { getObject, type ClusterConnection } from '@tidemark/cluster';
import { messageOf } from '@tidemark/contracts';
import type { GitHostTarget } from './host-target';
import type { GitHostConfig, GitHostTokenRef } from './git-hosts-config';

/** targetOf reads the host's token when a status or comment is sent (a rotated Secret or file is used at once). */
export async function targetOf(host: GitHostConfig, connectionFor: (cluster: string) => ClusterConnection): Promise<GitHostTarget> {
  return { provider: host.provider, apiUrl: host.apiUrl, repository: host.repository, token: await readToken(host.token, host.source, connectionFor) };
}

/** readToken reads a token from its Secret or file; its errors name where and which key, never a value. */
export async function readToken(ref: GitHostTokenRef, source: string, connectionFor: (cluster: string) => ClusterConnection): Promise<string> {
  if ('file' in ref) {
    const token = await readFile(ref.file, 'utf8').then((text) => text.trim(), () => '');
    if (!token) throw new Error(`gitHosts of source ${source}: token file ${ref.file} cannot be read or is empty`);
    return token;
  }
  const { cluster, namespace, name, key } = ref.secretRef;
  const where = `gitHosts of source ${source}: Secret ${namespace}/${name} on cluster ${cluster}`;
  const secret = await getObject(connectionFor(cluster), { apiVersion: 'v1', kind: 'Secret', namespace, name }).catch((error: unknown) => {
    throw new Error(`${where} cannot be read: ${messageOf(error)}`);
  });
  if (!secret) throw new Error(`${where} does not exist; create it with the key ${key}`);
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  const token = Buffer.from(data[key] ?? '', 'base64').toString('utf8').trim();
  if (!token) throw new Error(`${where} has no key ${key}; it has ${Object.keys(data).sort().join(', ') || 'none'}`);
  return token;
}
