import type { PreviewAction, PreviewReport, RolloutCommandVerb, RolloutRecord } from '@tidemark/contracts';
import type { ApiClient } from '../api-client';
import { paint, printJson, table, type Output } from '../output';

/** RolloutCommandAnswer is what POST /api/rollouts/:source/:verb answers: the command, queued for the driver. */
interface RolloutCommandAnswer { action: string; source: string; revision: string; queued: true }

/**
 * rolloutStatusCommand shows a source's rollout (GET /api/rollouts/:source), or every source's
 * (GET /api/rollouts): the phase, then one row per cluster with its wave, its target revision and
 * its state; a halted rollout says which cluster, object and why.
 */
export async function rolloutStatusCommand(api: ApiClient, output: Output, source: string | undefined): Promise<void> {
  const records = source ? [await api.get<RolloutRecord>(`/rollouts/${encodeURIComponent(source)}`)] : (await api.get<{ rollouts: RolloutRecord[] }>('/rollouts')).rollouts;
  if (output.format === 'json') return printJson(output, source ? records[0] : { rollouts: records });
  if (records.length === 0) return output.write('no source rolls out in waves\n');
  for (const record of records) output.write(describeRollout(output, record, await pendingPreview(api, record)));
}

/** pendingPreview is the preview of a revision that waits for an operator; undefined when there is none (or none is pending). */
async function pendingPreview(api: ApiClient, record: RolloutRecord): Promise<PreviewReport | undefined> {
  if (record.phase !== 'waiting-approval') return undefined;
  return api.get<PreviewReport>(`/previews/${encodeURIComponent(record.source)}/${record.revision}`).catch(() => undefined);
}

/** previewLine says what syncing a pending revision would do, from its preview. */
function previewLine(record: RolloutRecord, preview: PreviewReport | undefined): string {
  if (!preview) return `  preview: none yet (tidemark preview ${record.revision} --source ${record.source})`;
  if (preview.state !== 'done') return `  preview: ${preview.state}${preview.error ? `: ${preview.error}` : ''}`;
  const counts = preview.blastRadius?.counts ?? {};
  const changes = (Object.entries(counts) as [PreviewAction, number][]).filter(([action, count]) => action !== 'unchanged' && count > 0).map(([action, count]) => `${count} ${action}`);
  const where = preview.blastRadius?.clusters.length ? ` on ${preview.blastRadius.clusters.join(', ')}` : '';
  return `  preview: ${changes.length > 0 ? changes.join(', ') : 'no change'}${where} (tidemark preview ${record.revision} --source ${record.source})`;
}

/** waitingLines say what the rollout waits for: an operator's sync of a pending revision, or a window or freeze. */
function waitingLines(record: RolloutRecord, preview: PreviewReport | undefined): string[] {
  const lines: string[] = [];
  if (record.phase === 'waiting-approval') lines.push(`  pending: ${record.revision.slice(0, 12)} waits for an operator before wave ${record.waves[record.wave]?.name ?? record.wave} (tidemark rollout sync ${record.source})`, previewLine(record, preview));
  if (record.held) lines.push(`  waiting: ${record.held.cluster}: ${record.held.reason} (since ${record.held.since}; the gate's clock stands still)`);
  return lines;
}

/** describeRollout is the text of one rollout: a headline, a pending revision or a halt, then waves × clusters. */
export function describeRollout(output: Pick<Output, 'colour'>, record: RolloutRecord, preview?: PreviewReport): string {
  const phase = record.paused ? `${record.phase}, paused` : record.phase;
  const colour = record.phase === 'halted' ? 'red' : record.phase === 'complete' ? 'green' : 'yellow';
  const lines = [`${record.source}  ${record.revision.slice(0, 12)}  ${paint(output, colour, phase)}  wave ${record.waves[record.wave]?.name ?? record.wave}${record.previous ? `  (last good ${record.previous.slice(0, 12)})` : ''}`];
  if (record.soakUntil && record.phase === 'soaking') lines.push(`  soaking until ${record.soakUntil}`);
  lines.push(...waitingLines(record, preview));
  if (record.halt) lines.push(`  halted: ${record.halt.cluster}${record.halt.objectKey ? ` ${record.halt.objectKey}` : ''}: ${record.halt.reason}`);
  if (record.lastAction) lines.push(`  last action: ${record.lastAction.action} by ${record.lastAction.by} at ${record.lastAction.at}`);
  const rows = record.waves.flatMap((wave) => wave.clusters.map((cluster) => {
    const cell = record.cells[cluster];
    return [wave.name, cluster, (record.targets[cluster] ?? '-').slice(0, 12), cell?.state ?? 'waiting', tookOf(cell?.reachedAt, cell?.readyAt)];
  }));
  lines.push(table(['WAVE', 'CLUSTER', 'TARGET', 'STATE', 'TOOK'], rows).trimEnd().replace(/^/gm, '  '));
  return `${lines.join('\n')}\n`;
}

/** rolloutActionCommand promotes, syncs, pauses, resumes or aborts a source's rollout (needs an operator token). */
export async function rolloutActionCommand(api: ApiClient, output: Output, verb: RolloutCommandVerb, source: string, revision?: string): Promise<void> {
  const answer = await api.post<RolloutCommandAnswer>(`/rollouts/${encodeURIComponent(source)}/${verb}`, revision ? { revision } : {});
  if (output.format === 'json') return printJson(output, answer);
  output.write(`${verb} of the rollout of ${answer.source} at ${answer.revision.slice(0, 12)} queued; the rollout driver takes it within a second (tidemark rollout status ${answer.source})\n`);
}

function tookOf(reachedAt: string | undefined, readyAt: string | undefined): string {
  if (!reachedAt || !readyAt) return '';
  const seconds = Math.max(0, Math.round((Date.parse(readyAt) - Date.parse(reachedAt)) / 1000));
  return `${seconds}s`;
}
