import type { ApiClient } from '../api-client';
import type { FreezeResult } from '../api-types';
import { printJson, type Output } from '../output';

/**
 * freezeCommand freezes a cluster (POST /api/clusters/:cluster/freeze; needs an operator token):
 * nothing is applied or pruned there until `tidemark unfreeze` lifts it.
 */
export async function freezeCommand(api: ApiClient, output: Output, cluster: string, reason: string): Promise<void> {
  const result = await api.post<FreezeResult>(`/clusters/${encodeURIComponent(cluster)}/freeze`, { reason });
  if (output.format === 'json') return printJson(output, result);
  const freeze = result.freeze;
  output.write(`froze cluster ${result.cluster}${freeze ? ` (by ${freeze.by} since ${freeze.since}: ${freeze.reason})` : ''}: nothing is applied or pruned there until it is unfrozen\n`);
}

/** unfreezeCommand lifts a cluster's freeze; the dashboard wakes its objects, which converge within seconds. */
export async function unfreezeCommand(api: ApiClient, output: Output, cluster: string): Promise<void> {
  const result = await api.post<FreezeResult>(`/clusters/${encodeURIComponent(cluster)}/unfreeze`, {});
  if (output.format === 'json') return printJson(output, result);
  output.write(`unfroze cluster ${result.cluster}: ${result.woken ?? 0} objects are reconciled now\n`);
}
