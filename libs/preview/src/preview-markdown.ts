import type { PreviewChange, PreviewReport } from '@tidemark/contracts';
import { describeHook } from './preview-hooks';

const symbols: Record<PreviewChange['action'], string> = { created: '+', configured: '~', deleted: '-', invalid: '!', unchanged: '=', skipped: '·' };

/**
 * previewMarkdown renders a report as the markdown a pull-request comment holds: the blast radius,
 * objects that would fail validation with the API server's message, then each cluster's changes
 * with their fields, then the sync hooks that would run, in their order. `link` points at the dashboard's page for the ref. Values are shown as JSON in
 * code spans; Secrets were redacted before the report was written.
 */
export function previewMarkdown(report: PreviewReport, link?: string): string {
  const lines = [`### Tidemark preview of ${ticked(report.ref)} (${escape(report.source)})`, ''];
  if (report.revision) lines.push(`Commit \`${report.revision.slice(0, 12)}\` compared with \`${(report.baseRevision ?? '').slice(0, 12)}\`, dry-run on the live clusters.`, '');
  if (report.state === 'failed') return [...lines, `**The preview failed:** ${escape(report.error ?? 'unknown error')}`, ''].join('\n');
  if (report.state === 'running' || report.state === 'queued') return [...lines, `The preview is ${report.state}…`, ''].join('\n');
  lines.push(...radiusLines(report));
  for (const { cluster, message } of report.unreachable ?? []) lines.push(`- ❓ cluster ${ticked(cluster)} could not be asked: ${escape(message)}`);
  lines.push(...invalidLines(report.changes));
  for (const cluster of [...new Set(report.changes.map((change) => change.cluster))].sort()) lines.push(...clusterLines(cluster, report.changes));
  lines.push(...hookLines(report));
  if (report.truncated?.omitted) lines.push(`_${report.truncated.omitted} more change(s) were left out to keep the report small; the counts above include them._`, '');
  if (link) lines.push(`[Side-by-side diffs on the dashboard](${link})`, '');
  return lines.join('\n');
}

function radiusLines({ blastRadius: radius }: PreviewReport): string[] {
  if (!radius) return [];
  const { counts } = radius;
  const lines = [
    `**${counts.created} created, ${counts.configured} changed, ${counts.deleted} deleted, ${counts.invalid} invalid** on ${radius.clusters.length} cluster(s): ${radius.clusters.map(ticked).join(', ') || 'none'}`,
    `Namespaces: ${radius.namespaces.map(ticked).join(', ') || 'none'} · Kinds: ${escape(radius.kinds.join(', ')) || 'none'}`, '',
  ];
  for (const flag of radius.flagged) lines.push(`- ⚠️ ${escape(flag)}`);
  if (radius.flagged.length > 0) lines.push('');
  return lines;
}

function hookLines({ hooks }: PreviewReport): string[] {
  if (!hooks?.length) return [];
  return ['#### Hooks that would run', '', ...hooks.map((hook) => `- ${escape(describeHook(hook))} on ${ticked(hook.cluster)}${where(hook)}`), ''];
}

function invalidLines(changes: readonly PreviewChange[]): string[] {
  const invalid = changes.filter((change) => change.action === 'invalid');
  if (invalid.length === 0) return [];
  return ['#### Would fail validation', '', ...invalid.map((change) => `- ${ticked(subject(change))} on ${ticked(change.cluster)}${where(change)}: ${escape(change.message ?? '')}`), ''];
}

function clusterLines(cluster: string, all: readonly PreviewChange[]): string[] {
  const changes = all.filter((change) => change.cluster === cluster && change.action !== 'unchanged' && change.action !== 'invalid');
  if (changes.length === 0) return [];
  const lines = [`#### ${escape(cluster)}`, '', '```diff'];
  for (const change of changes) {
    lines.push(fence(`${symbols[change.action]} ${subject(change)} (${change.action}${change.message ? `: ${change.message}` : ''})`));
    for (const field of change.fields ?? []) lines.push(fence(`  ${field.path}: ${value(field.live)} → ${value(field.desired)}${field.overwrites ? `  (overwrites ${field.overwrites})` : ''}`));
  }
  return [...lines, '```', ''];
}

/** fence keeps a line inside the diff block: no newline or run of backticks can close it. */
function fence(line: string): string {
  return line.replace(/[\n\r]+/g, ' ').replace(/`{3,}/g, (run) => "'".repeat(run.length));
}

function subject(change: PreviewChange): string {
  return `${change.kind} ${change.namespace ? `${change.namespace}/` : ''}${change.name}`;
}

function where(change: Pick<PreviewChange, 'path' | 'line'>): string {
  return change.path ? ` (${ticked(change.path)}${change.line ? ` line ${change.line}` : ''})` : '';
}

function value(input: unknown): string {
  if (input === undefined) return '(absent)';
  const text = JSON.stringify(input);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** ticked is a value in a code span. */
function ticked(text: string): string {
  return `\`${code(text)}\``;
}

/** code keeps a value inside its code span: backticks and newlines cannot end it early. */
function code(text: string): string {
  return text.replace(/[`\n\r]/g, ' ');
}

/** escape keeps text from Git or the API server from adding markdown (links, HTML, headings). */
function escape(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, (character) => `\\${character}`).replace(/[\n\r]+/g, ' ');
}
