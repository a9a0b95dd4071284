import type { KubernetesManifest } from '../kind-plugin';

/** live builds a live object for health tests: metadata in namespace `shop`, plus spec and status. */
export function live(apiVersion: string, kind: string, fields: { generation?: number; spec?: unknown; status?: unknown } = {}): KubernetesManifest {
  const { generation, ...rest } = fields;
  return { apiVersion, kind, metadata: { name: 'web', namespace: 'shop', ...(generation === undefined ? {} : { generation }) }, ...rest };
}

/** condition builds a status condition for health tests. */
export function condition(type: string, status: 'True' | 'False' | 'Unknown', reason = 'Test', message = ''): Record<string, string> {
  return { type, status, reason, message };
}
