import type { PreviewChange, PreviewReport } from '@tidemark/contracts';
import { ExitCode } from '../cli-error';
import { paint, printJson, stateColour, table, type Output } from '../output';
import { value } from './format';

/** ReportFormat: the table (or -o json), or the markdown a pull request shows. */
export interface ReportOptions {
  markdown?: (report: PreviewReport) => string;
}

/**
 * printReport shows a preview or diff report: the blast radius, one row per object that would
 * change on each cluster, and under it the fields with the manager a change would overwrite, then
 * the sync hooks it would run.
 */
export function printReport(output: Output, report: PreviewReport, options: ReportOptions = {}): void {
  if (output.format === 'json') return printJson(output, report);
  if (options.markdown) return output.write(options.markdown(report));
  if (report.state === 'failed') return output.write(`${paint(output, 'red', 'The preview failed:')} ${report.error ?? 'unknown error'}\n`);
  printRadius(output, report);
  for (const { cluster, message } of report.unreachable ?? []) output.write(`${paint(output, 'red', 'unreachable:')} cluster ${cluster}: ${message}\n`);
  const moving = report.changes.filter((change) => change.action !== 'unchanged');
  if (moving.length === 0) {
    output.write('No changes.\n');
    return printHooks(output, report);
  }
  output.write('\n');
  output.write(table(['CLUSTER', 'ACTION', 'KIND', 'NAMESPACE', 'NAME', 'DETAIL'], moving.map((change) => [
    change.cluster, paint(output, stateColour(change.action), change.action), change.kind, change.namespace || '-', change.name, detail(change),
  ])));
  for (const change of moving.filter((entry) => entry.fields?.length)) {
    output.write(`\n${paint(output, 'bold', `${change.cluster}: ${change.kind} ${change.namespace ? `${change.namespace}/` : ''}${change.name}`)}\n`);
    output.write(table(['  FIELD', 'LIVE', 'AFTER', 'OVERWRITES'], change.fields!.map((field) => [`  ${field.path}`, value(field.live, 40), value(field.desired, 40), field.overwrites ?? ''])));
  }
  if (report.truncated?.omitted) output.write(`\n${report.truncated.omitted} more change(s) were left out of the stored report; the counts include them.\n`);
  printHooks(output, report);
}

/** printHooks lists the sync hooks the change would run, in the order they run. */
function printHooks(output: Output, report: PreviewReport): void {
  if (!report.hooks?.length) return;
  output.write(`\n${paint(output, 'bold', 'Hooks that would run')}\n`);
  output.write(table(['CLUSTER', 'PHASE', 'WEIGHT', 'KIND', 'NAMESPACE', 'NAME', 'DETAIL'], report.hooks.map((hook) => [
    hook.cluster, hook.note ? '-' : hook.phase, hook.note ? '-' : String(hook.weight), hook.kind, hook.namespace || '-', hook.name, hook.note ? value(hook.note, 80) : hook.deletePolicies.join(','),
  ])));
}

function printRadius(output: Output, report: PreviewReport): void {
  const radius = report.blastRadius;
  if (!radius) return;
  const { counts } = radius;
  output.write(`${paint(output, 'bold', report.ref)}${report.revision ? ` (${report.revision.slice(0, 12)})` : ''}: ${counts.created} created, ${counts.configured} changed, ${counts.deleted} deleted, ${counts.invalid} invalid on ${radius.clusters.length} cluster(s)\n`);
  if (radius.namespaces.length > 0) output.write(`Namespaces: ${radius.namespaces.join(', ')}  Kinds: ${radius.kinds.join(', ')}\n`);
  for (const flag of radius.flagged) output.write(`${paint(output, 'yellow', 'warning:')} ${flag}\n`);
}

function detail(change: PreviewChange): string {
  if (change.message) return value(change.message, 80);
  if (change.fields?.length) return `${change.fields.length} field(s)`;
  return change.path ? `${change.path}${change.line ? `:${change.line}` : ''}` : '';
}

/** exitCodeOf: 1 when the report failed or a cluster could not be asked, 4 when an object would be refused, 3 when something would change, else 0. */
export function exitCodeOf(report: PreviewReport): ExitCode {
  if (report.state === 'failed' || (report.unreachable?.length ?? 0) > 0) return ExitCode.Failed;
  if (report.changes.some((change) => change.action === 'invalid')) return ExitCode.Invalid;
  if (report.changes.some((change) => change.action === 'created' || change.action === 'configured' || change.action === 'deleted')) return ExitCode.Changes;
  if ((report.truncated?.omitted ?? 0) > 0) return ExitCode.Changes;
  return ExitCode.Ok;
}
