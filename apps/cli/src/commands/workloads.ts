import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../cli-error';
import { clustersOfObject, objectPath, resolveObject } from '../object-ref';
import { printJson, type Output } from '../output';

interface Done { action: string; cluster: string; target: string; restartedAt?: string; job?: string }
interface Pods {
  target: string;
  pods: { name: string; phase: string; ready: string; restarts: number; node?: string; containers: { name: string; state: string; log?: string; logError?: string }[] }[];
  events: { type: string; reason: string; message: string; object: string; lastSeen?: string }[];
}

/** targetQuery names a rendered object (Kind/namespace/name) of the Git object, for the API's query. */
function targetQuery(target: string | undefined): string {
  if (!target) return '';
  const [kind, namespace, name, ...rest] = target.split('/');
  if (!kind || namespace === undefined || !name || rest.length > 0) throw new CliError('BadTarget', `--target must be Kind/namespace/name (namespace empty for a cluster-scoped object), not "${target}"`, ExitCode.Usage);
  return `?${new URLSearchParams({ kind, namespace, name }).toString()}`;
}

async function clustersFor(api: ApiClient, typed: string, cluster: string | undefined) {
  const object = await resolveObject(api, typed);
  const clusters = cluster ? [cluster] : await clustersOfObject(api, object);
  if (clusters.length === 0) throw new CliError('ClusterRequired', `name the cluster with --cluster for ${typed}`, ExitCode.Usage);
  return { object, clusters };
}

/** workloadActionCommand restarts a managed workload or runs a managed CronJob now, on each cluster (operator role). */
export async function workloadActionCommand(api: ApiClient, output: Output, verb: 'restart' | 'run-job', typed: string, options: { cluster?: string; target?: string }): Promise<void> {
  const { object, clusters } = await clustersFor(api, typed, options.cluster);
  const results: Done[] = [];
  for (const name of clusters) results.push(await api.post<Done>(`${objectPath(name, object.key)}/${verb}${targetQuery(options.target)}`));
  if (output.format === 'json') return printJson(output, results);
  for (const result of results) output.write(`${result.action} ${result.target} on ${result.cluster}: ${result.job ? `job ${result.job}` : `restarted at ${result.restartedAt}`}\n`);
}

/** podsCommand shows a managed workload's Pods, their last log lines and Events, on one cluster. */
export async function podsCommand(api: ApiClient, output: Output, typed: string, options: { cluster?: string; target?: string }): Promise<void> {
  const { object, clusters } = await clustersFor(api, typed, options.cluster);
  const cluster = clusters[0]!;
  const found = await api.get<Pods>(`${objectPath(cluster, object.key)}/pods${targetQuery(options.target)}`);
  if (output.format === 'json') return printJson(output, found);
  output.write(`${found.target} on ${cluster}: ${found.pods.length} pod${found.pods.length === 1 ? '' : 's'}\n`);
  for (const pod of found.pods) {
    output.write(`  ${pod.name}  ${pod.phase}  ready ${pod.ready}  restarts ${pod.restarts}${pod.node ? `  on ${pod.node}` : ''}\n`);
    for (const container of pod.containers) {
      output.write(`    ${container.name} (${container.state})\n`);
      const text = container.log ?? (container.logError ? `(no log: ${container.logError})` : '');
      for (const line of text.split('\n').filter(Boolean).slice(-20)) output.write(`      ${line}\n`);
    }
  }
  for (const event of found.events.slice(0, 10)) output.write(`  ${event.type} ${event.reason} ${event.object}: ${event.message}\n`);
}
