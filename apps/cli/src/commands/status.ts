import type { ApiClient } from '../api-client';
import type { Overview, StateCounts } from '../api-types';
import { paint, printJson, stateColour, table, type Output } from '../output';
import { age, short } from './format';

/** statusCommand prints sources, clusters and the counts per state (GET /api/overview). */
export async function statusCommand(api: ApiClient, output: Output): Promise<void> {
  const overview = await api.get<Overview>('/overview');
  if (output.format === 'json') return printJson(output, overview);
  output.write(`${paint(output, 'bold', 'Objects')}  ${countsLine(output, overview.counts)}\n\n`);
  output.write(table(['SOURCE', 'STATE', 'REF', 'REVISION', 'OBJECTS', 'POLLED', 'MESSAGE'], overview.sources.map((source) => [
    source.name, paint(output, stateColour(source.state ?? 'Unknown'), source.state ?? 'unknown'), source.ref ?? '', short(source.revision),
    String(source.declaredObjects ?? source.objects), age(source.polledAt), source.error ?? source.commitMessage ?? '',
  ])));
  output.write('\n');
  output.write(table(['CLUSTER', 'HEALTH', 'LATENCY', 'OBJECTS', 'READY', 'NOT READY', 'DRIFTED', 'QUEUED', 'FAILED'], overview.clusters.map((cluster) => [
    cluster.name, paint(output, stateColour(cluster.health.state), cluster.health.state),
    cluster.health.latencyMs === undefined ? '-' : `${Math.round(cluster.health.latencyMs)}ms`,
    String(cluster.counts.total), String(cluster.counts.Ready), String(cluster.counts.total - cluster.counts.Ready),
    String(cluster.counts.Drifted), String((cluster.queue?.depth.waiting ?? 0) + (cluster.queue?.depth.delayed ?? 0)), String(cluster.queue?.depth.failed ?? 0),
  ])));
  for (const { name, freeze, agent } of overview.clusters) {
    if (agent) output.write(`\nCluster ${name} is served by an agent: ${agent.heartbeat ? `Tidemark ${agent.heartbeat.version}, Kubernetes ${agent.heartbeat.serverVersion ?? 'unknown'}, last heartbeat ${age(agent.heartbeat.lastSeen)} ago` : paint(output, 'red', 'no heartbeat now')}.\n`);
    if (freeze) output.write(`\n${paint(output, 'red', `Cluster ${name} is frozen`)} by ${freeze.by} since ${freeze.since}: ${freeze.reason}. Nothing is applied or pruned there until \`tidemark unfreeze ${name}\`.\n`);
  }
  if (overview.queueError) output.write(`\n${paint(output, 'red', 'Queue figures unavailable:')} ${overview.queueError}\n`);
}

function countsLine(output: Output, counts: StateCounts): string {
  const states = ['Ready', 'Reconciling', 'Waiting', 'Stalled', 'Failed', 'Unknown', 'Drifted', 'Suspended'] as const;
  return [`${counts.total} total`, ...states.filter((state) => counts[state] > 0).map((state) => paint(output, stateColour(state), `${counts[state]} ${state}`))].join(', ');
}
