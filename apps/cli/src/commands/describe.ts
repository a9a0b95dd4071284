import { verdictOf } from '@tidemark/contracts';
import type { ApiClient } from '../api-client';
import type { ObjectDetail } from '../api-types';
import { clustersOfObject, objectPath, resolveObject } from '../object-ref';
import { paint, printJson, stateColour, table, type Output } from '../output';
import { age, indent, short, value } from './format';

/**
 * describeCommand shows one object on each cluster it is on (or the one --cluster names):
 * its state (verdictOf, as the dashboard reads it), conditions, drift, inventory and the last runs
 * (GET /api/objects/:cluster/…).
 */
export async function describeCommand(api: ApiClient, output: Output, typed: string, cluster?: string): Promise<void> {
  const object = await resolveObject(api, typed);
  const clusters = cluster ? [cluster] : await clustersOfObject(api, object);
  const details: ObjectDetail[] = [];
  for (const name of clusters) details.push(await api.get<ObjectDetail>(objectPath(name, object.key)));
  if (output.format === 'json') return printJson(output, details);
  for (const detail of details) writeDetail(output, detail);
}

function writeDetail(output: Output, { status, history }: ObjectDetail): void {
  const heading = (text: string) => paint(output, 'bold', text);
  const verdict = verdictOf(status);
  const lines = [
    `${heading('Object:')}     ${status.kind} ${status.namespace ? `${status.namespace}/` : ''}${status.name}  (${status.objectKey})`,
    `${heading('Cluster:')}    ${status.cluster}`,
    `${heading('State:')}      ${paint(output, stateColour(verdict.state), verdict.state)}${verdict.state === 'Ready' || !verdict.reason ? '' : ` (${verdict.reason}: ${verdict.message})`}`,
    `${heading('Source:')}     ${status.source}${status.path ? ` ${status.path}${status.line ? `:${status.line}` : ''}` : ''}`,
    `${heading('Revision:')}   applied ${short(status.lastAppliedRevision)}, attempted ${short(status.lastAttemptedRevision)}`,
    `${heading('Generation:')} ${status.generation ?? '-'} (observed ${status.observedGeneration ?? '-'})${status.suspended ? paint(output, 'yellow', '  SUSPENDED') : ''}`,
    `${heading('Updated:')}    ${age(status.updatedAt)} ago`,
  ];
  output.write(`${lines.join('\n')}\n\n${heading('Conditions:')}\n`);
  output.write(indent(table(['TYPE', 'STATUS', 'REASON', 'AGE', 'MESSAGE'], status.conditions.map((condition) => [
    condition.type, paint(output, stateColour(condition.status), condition.status), condition.reason, age(condition.lastTransitionTime), condition.message,
  ]))));
  if (status.drift?.length) {
    output.write(`\n${heading('Drift:')}\n`);
    output.write(indent(table(['OBJECT', 'FIELD', 'GIT', 'LIVE', 'MANAGER'], status.drift.map((item) => [item.object ?? '-', item.path, value(item.desired, 30), value(item.live, 30), item.manager]))));
  }
  if (status.inventory.length) {
    output.write(`\n${heading('Inventory:')}\n`);
    output.write(indent(table(['KIND', 'NAMESPACE', 'NAME'], status.inventory.map((entry) => [entry.kind, entry.namespace || '-', entry.name]))));
  }
  for (const warning of status.warnings ?? []) output.write(`${paint(output, 'yellow', 'Warning:')} ${warning}\n`);
  if (history.length) {
    output.write(`\n${heading('History:')}\n`);
    output.write(indent(table(['WHEN', 'REVISION', 'RESULT', 'TOOK', 'MESSAGE'], history.slice(0, 10).map((run) => [
      age(run.startedAt), short(run.revision), paint(output, run.result === 'failure' ? 'red' : 'grey', run.result + (run.repeats && run.repeats > 1 ? ` ×${run.repeats}` : '')),
      `${Math.round(run.durationMs)}ms`, run.message ?? '',
    ]))));
  }
  output.write('\n');
}
