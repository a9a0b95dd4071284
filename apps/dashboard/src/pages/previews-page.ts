import type { PreviewAction, PreviewBlastRadius, PreviewPullRequest, PreviewReport } from '@tidemark/contracts';
import type { DiffLine } from '../view/drift-diff';
import { previewActionOrder, previewObjects, type PreviewChangeView, type PreviewObject } from '../view/preview-view';
import { clusterHref } from './clusters-page';
import { shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';
import { sourceHref } from './overview-page';

/** PreviewListRow is one stored preview as the list shows it; `report` is undefined when its record is unreadable. */
export interface PreviewListRow {
  source: string;
  ref: string;
  report?: PreviewReport;
}

/** previewHref is the page of one preview; the ref keeps its slashes (feature/x) as path segments. */
export function previewHref(source: string, ref: string): string {
  return `/previews/${encodeURIComponent(source)}/${ref.split('/').map(encodeURIComponent).join('/')}`;
}

const actionWords: Record<PreviewAction, string> = { created: 'created', configured: 'changed', unchanged: 'unchanged', deleted: 'deleted', invalid: 'refused', skipped: 'skipped' };
const actionState: Record<PreviewAction, string> = { created: 'ready', configured: 'reconciling', unchanged: 'unknown', deleted: 'stalled', invalid: 'failed', skipped: 'suspended' };

/** actionBadge is one preview action as a badge, as the preview pages show it. */
export function actionBadge(action: PreviewAction): SafeHtml {
  return html`<span class="badge state-${actionState[action]}" data-action="${action}">${actionWords[action]}</span>`;
}

/** reportState is a preview's state as a word, coloured. */
export function reportState(report: PreviewReport | undefined): SafeHtml {
  if (!report) return html`<span class="error">unreadable record</span>`;
  if (report.state === 'failed') return html`<span class="error">failed</span>`;
  if (report.state === 'done') return html`<span class="cond-good">done</span>`;
  return report.state === 'queued' ? html`<span class="muted">queued</span>` : html`<span class="cond-busy">running</span>`;
}

/** countsText names the actions that happen, e.g. "2 created, 1 changed, 1 refused". */
export function countsText(counts: Partial<Record<PreviewAction, number>> | undefined): string {
  const parts = previewActionOrder.filter((action) => action !== 'unchanged' && (counts?.[action] ?? 0) > 0).map((action) => `${counts?.[action]} ${actionWords[action]}`);
  return parts.length > 0 ? parts.join(', ') : 'no change';
}

/** previewsPage lists the stored previews, newest first. */
export function previewsPage(rows: readonly PreviewListRow[]): SafeHtml {
  return html`<h1>Previews</h1>
<p class="muted">What merging a branch or commit would do on each cluster it targets, from server-side dry-runs; nothing is applied. Kept for a week.</p>
${rows.length === 0 ? html`<p class="muted" id="previews-none">No preview has been made yet.</p>` : html`<div class="scroll"><table id="previews"><caption class="visually-hidden">Previews, newest first</caption>
<tr><th scope="col">Source</th><th scope="col">Ref</th><th scope="col">Revision</th><th scope="col">State</th><th scope="col">Requested</th><th scope="col">Changes</th></tr>
${rows.map(({ source, ref, report }) => html`<tr data-preview="${source}/${ref}"><td><a href="${sourceHref(source)}">${source}</a></td><th scope="row"><a href="${previewHref(source, ref)}">${ref}</a></th>
<td>${shortRevision(report?.revision)}</td><td>${reportState(report)}</td><td>${timeAgo(report?.requestedAt)}</td><td>${report?.error ? html`<span class="error">${report.error}</span>` : countsText(report?.blastRadius?.counts)}</td></tr>`)}</table></div>`}`;
}

function blastRadiusHtml(radius: PreviewBlastRadius | undefined): SafeHtml {
  if (!radius) return html`<p class="muted">Not known yet.</p>`;
  const list = (values: readonly string[]) => (values.length > 0 ? values.join(', ') : '—');
  return html`<dl class="facts" id="blast-radius"><dt>Changes</dt><dd id="blast-counts">${countsText(radius.counts)}</dd>
<dt>Clusters</dt><dd>${radius.clusters.length > 0 ? radius.clusters.map((cluster) => html`<a href="${clusterHref(cluster)}">${cluster}</a> `) : '—'}</dd>
<dt>Namespaces</dt><dd>${list(radius.namespaces)}</dd><dt>Kinds</dt><dd>${list(radius.kinds)}</dd></dl>
${radius.flagged.length > 0 ? html`<div class="notice" id="flagged"><strong>Needs a careful look:</strong><ul>${radius.flagged.map((flag) => html`<li>${flag}</li>`)}</ul></div>` : ''}`;
}

function subject(change: PreviewChangeView): string {
  return `${change.kind} ${change.namespace ? `${change.namespace}/` : ''}${change.name}`;
}

/** diffRow: live on the left, the previewed ref on the right; a changed line names the manager it overwrites on hover. */
function diffRow(line: DiffLine, firstOfField: boolean): SafeHtml {
  const indent = '  '.repeat(line.depth);
  if (!line.changed) return html`<tr class="context"><td><span class="mark" aria-hidden="true"> </span><code>${indent}${line.live}</code></td><td><span class="mark" aria-hidden="true"> </span><code>${indent}${line.desired}</code></td><td></td></tr>`;
  const title = line.manager ? `${line.path} — overwrites the value written by ${line.manager}` : `${line.path} — written by Tidemark`;
  return html`<tr class="changed" data-path="${line.path}" title="${title}"><td class="del"><span class="mark" aria-hidden="true">−</span><code class="live">${line.live ? indent : ''}${line.live}</code></td>
<td class="ins"><span class="mark" aria-hidden="true">+</span><code class="desired">${line.desired ? indent : ''}${line.desired}</code></td><td class="manager">${firstOfField && line.manager ? line.manager : ''}</td></tr>`;
}

/** wholeObject shows a created object as it would be, or a deleted one as it is, in one column. */
function wholeObject(change: PreviewChangeView, ref: string): SafeHtml {
  const created = change.action === 'created';
  const rows = change.lines.map((line) => html`<tr class="changed"><td class="${created ? 'ins' : 'del'}"><span class="mark" aria-hidden="true">${created ? '+' : '−'}</span><code class="${created ? 'desired' : 'live'}">${'  '.repeat(line.depth)}${created ? line.desired : line.live}</code></td></tr>`);
  return html`<div class="scroll"><table class="diff"><thead><tr><th scope="col">${created ? `Created by merging ${ref}` : `Now (cluster), deleted by merging ${ref}`}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function sideBySide(change: PreviewChangeView, ref: string): SafeHtml {
  if (change.lines.length === 0) return html``;
  if (change.action === 'created' || change.action === 'deleted') return wholeObject(change, ref);
  let previousPath: string | undefined;
  const rows = change.lines.map((line) => {
    const first = line.changed && line.path !== previousPath;
    previousPath = line.path;
    return diffRow(line, first);
  });
  return html`<div class="scroll"><table class="diff"><thead><tr><th scope="col">Now (cluster)</th><th scope="col">After merging ${ref}</th><th scope="col">Overwrites</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** hiddenFields says which fields of a Secret (or a redacted object) change, never their values. */
function hiddenFields(change: PreviewChangeView): SafeHtml {
  if (change.fields.length === 0) return html`<p class="muted">Its values are not shown.</p>`;
  return html`<p class="muted">Its values are not shown; these fields change:</p><ul class="hidden-fields">${change.fields.map((field) => html`<li data-path="${field.path}"><code>${field.path}</code> ${field.change === 'changed' ? 'changed' : field.change}</li>`)}</ul>`;
}

function changeHtml(change: PreviewChangeView, ref: string): SafeHtml {
  const fields = change.fields.length;
  const overwritten = [...new Set(change.fields.flatMap((field) => (field.overwrites ? [field.overwrites] : [])))];
  return html`<figure class="diff preview-change" data-cluster="${change.cluster}" data-action="${change.action}" data-object="${subject(change)}"><figcaption><strong>${subject(change)}</strong> on <a href="${clusterHref(change.cluster)}">${change.cluster}</a>: ${actionBadge(change.action)}${change.action === 'configured' ? html` ${fields} field${fields === 1 ? '' : 's'}` : ''}${overwritten.length > 0 ? html` · <span class="state-drifted">overwrites ${overwritten.join(', ')}</span>` : ''}</figcaption>
${change.message ? html`<p class="${change.action === 'invalid' ? 'error refusal' : 'muted'}">${change.action === 'invalid' ? 'The API server refused it: ' : ''}${change.message}</p>` : ''}
${change.hidden ? hiddenFields(change) : sideBySide(change, ref)}</figure>`;
}

function objectSection(group: PreviewObject, ref: string): SafeHtml {
  const [kind = '', namespace = '', name = ''] = group.objectKey.split('/').slice(1);
  const where = group.path ? `${group.path}${group.line !== undefined ? `:${group.line}` : ''}` : '';
  return html`<section class="preview-object" data-object="${group.objectKey}"><h3>${kind} ${namespace && namespace !== '_' ? `${namespace}/` : ''}${name} ${where ? html`<small class="muted"><code>${where}</code></small>` : ''}</h3>
${group.changes.map((change) => changeHtml(change, ref))}</section>`;
}

/** pullRequestLink links the pull request the webhook named, only to an http(s) page. */
function pullRequestLink(pullRequest: PreviewPullRequest): SafeHtml {
  const text = `#${pullRequest.number}${pullRequest.title ? ` ${pullRequest.title}` : ''}`;
  const url = pullRequest.url && /^https?:\/\//i.test(pullRequest.url) ? pullRequest.url : undefined;
  return url ? html`<a href="${url}" rel="noreferrer">${text}</a>` : html`${text}`;
}

/** previewPage: one preview's state, blast radius and, per Git object and cluster, what would change. */
export function previewPage(report: PreviewReport): SafeHtml {
  const objects = previewObjects(report);
  return html`<h1>Preview of ${report.ref} <small class="muted">in <a href="${sourceHref(report.source)}">${report.source}</a></small></h1>
<dl class="facts" id="preview-facts"><dt>State</dt><dd>${reportState(report)}</dd>
<dt>Revision</dt><dd>${shortRevision(report.revision)} compared with ${shortRevision(report.baseRevision)}</dd>
<dt>Requested</dt><dd>${timeAgo(report.requestedAt)}${report.trigger ? html` <span class="muted">by ${report.trigger === 'webhook' ? 'a webhook of the Git host' : 'a request'}</span>` : ''}</dd><dt>Finished</dt><dd>${timeAgo(report.finishedAt)}</dd>
${report.pullRequest ? html`<dt>Pull request</dt><dd id="pull-request">${pullRequestLink(report.pullRequest)}</dd>` : ''}</dl>
${report.error ? html`<p class="error" id="preview-error">${report.error}</p>` : ''}
${report.truncated ? html`<p class="notice" id="truncated">The report was cut to fit: ${report.truncated.omitted} changes are left out and ${report.truncated.withoutObjects} are shown without their objects. The counts and the blast radius cover every change.</p>` : ''}
${report.unreachable?.length ? html`<div class="notice" id="unreachable"><strong>Clusters that could not be asked</strong> (their changes are missing):<ul>${report.unreachable.map((entry) => html`<li><a href="${clusterHref(entry.cluster)}">${entry.cluster}</a>: ${entry.message}</li>`)}</ul></div>` : ''}
<h2>Blast radius</h2>${blastRadiusHtml(report.blastRadius)}
<h2>Changes</h2>${objects.length === 0 ? html`<p class="muted" id="changes-none">${report.state === 'running' || report.state === 'queued' ? `The preview is ${report.state}.` : report.state === 'failed' ? 'The preview failed; see why above.' : 'Merging it changes nothing on any cluster.'}</p>` : objects.map((group) => objectSection(group, report.ref))}`;
}
