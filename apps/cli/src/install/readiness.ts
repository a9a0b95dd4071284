import { getObject, type ClusterConnection } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { healthOf } from '@tidemark/kinds';
import type { InventoryEntry } from './inventory';
import type { Progress } from './apply-install';

const workloadKinds = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** WorkloadState is one workload's verdict, from the same health rules the reconciler uses. */
export interface WorkloadState {
  entry: InventoryEntry;
  ready: boolean;
  message: string;
}

/** workloadsOf lists the Deployments, StatefulSets and DaemonSets of an install. */
export function workloadsOf(entries: readonly InventoryEntry[]): InventoryEntry[] {
  return entries.filter((entry) => workloadKinds.has(entry.kind));
}

/** workloadStates reads each workload and judges it with healthOf (Ready once rolled out and available). */
export async function workloadStates(connection: ClusterConnection, entries: readonly InventoryEntry[]): Promise<WorkloadState[]> {
  return Promise.all(workloadsOf(entries).map(async (entry) => {
    const live = await getObject(connection, entry);
    if (!live) return { entry, ready: false, message: `${entry.kind} ${entry.namespace}/${entry.name} does not exist` };
    const health = healthOf(live as KubernetesManifest);
    return { entry, ready: health.status === 'Ready', message: health.message ?? health.status };
  }));
}

/**
 * waitUntilReady polls the workloads until every one is Ready or the time is up, printing a line
 * each time a workload's state changes. It resolves with the states last read.
 */
export async function waitUntilReady(connection: ClusterConnection, entries: readonly InventoryEntry[], timeoutMs: number, progress: Progress, signal?: AbortSignal): Promise<WorkloadState[]> {
  const deadline = Date.now() + timeoutMs;
  const shown = new Map<string, string>();
  for (;;) {
    const states = await workloadStates(connection, entries);
    for (const state of states) {
      const key = `${state.entry.kind}/${state.entry.name}`;
      if (shown.get(key) !== state.message) {
        shown.set(key, state.message);
        progress(`  ${state.ready ? 'ready' : 'waiting'}: ${state.message}`);
      }
    }
    if (states.every((state) => state.ready) || Date.now() >= deadline || signal?.aborted) return states;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
