import type { PreviewReport, RolloutRecord } from '@tidemark/contracts';
import { mayAct, type Principal } from '../auth/principal';
import { previewObjects } from '../view/preview-view';
import { shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';
import { actionBadge, countsText, previewHref, reportState } from './previews-page';

// The page shows this many objects of a pending revision's preview; the preview's own page shows all.
const maxObjectsShown = 20;

/** previewSummary is a pending revision's preview in brief: its state, what changes where, and a link to the whole. */
function previewSummary(record: RolloutRecord, report: PreviewReport | undefined): SafeHtml {
  if (!report) return html`<p class="muted" data-preview="none">No preview of ${shortRevision(record.revision)} yet: it is asked for when the revision starts to wait, and kept for a week.</p>`;
  const objects = previewObjects(report).filter((group) => group.changes.some((change) => change.action !== 'unchanged'));
  const shown = objects.slice(0, maxObjectsShown);
  return html`<div class="pending-preview" data-preview="${report.state}"><p>Preview ${reportState(report)} <span class="muted">(${timeAgo(report.finishedAt ?? report.requestedAt)})</span>: <span data-preview-counts>${report.error ? html`<span class="error">${report.error}</span>` : countsText(report.blastRadius?.counts)}</span>.
<a href="${previewHref(record.source, report.ref)}">The whole preview</a>, field by field.</p>
${report.blastRadius?.flagged.length ? html`<div class="notice"><strong>Needs a careful look:</strong><ul>${report.blastRadius.flagged.map((flag) => html`<li>${flag}</li>`)}</ul></div>` : ''}
${shown.length > 0 ? html`<ul class="pending-changes">${shown.map((group) => html`<li data-object="${group.objectKey}"><code>${group.objectKey}</code> ${group.changes.filter((change) => change.action !== 'unchanged').map((change) => html`<span data-cluster="${change.cluster}">${change.cluster} ${actionBadge(change.action)}</span> `)}</li>`)}</ul>` : ''}
${objects.length > shown.length ? html`<p class="muted">And ${objects.length - shown.length} more objects.</p>` : ''}</div>`;
}

function pendingForms(record: RolloutRecord, principal: Principal | undefined): SafeHtml {
  if (!mayAct(principal)) return html`<p class="muted">Syncing a pending revision needs the operator role.</p>`;
  const source = encodeURIComponent(record.source);
  const csrf = html`<input type="hidden" name="_csrf" value="${principal.csrf ?? ''}">`;
  return html`<form method="post" action="/rollouts/${source}/sync" class="inline">${csrf}<input type="hidden" name="revision" value="${record.revision}"><button data-action="rollout-sync">sync ${shortRevision(record.revision)}</button></form>
<form method="post" action="/rollouts/${source}/preview" class="inline">${csrf}<button data-action="rollout-preview">preview again</button></form>`;
}

/**
 * pendingSection is a rollout's revision that waits for an operator (a manual sync, or a wave's
 * approval): which wave waits, the revision's preview against the live clusters, and, for an
 * operator, the sync button.
 */
export function pendingSection(record: RolloutRecord, preview: PreviewReport | undefined, principal: Principal | undefined): SafeHtml {
  return html`<div class="pending" data-pending="${record.revision}"><p>Revision ${shortRevision(record.revision)} is pending: wave ${record.waves[record.wave]?.name ?? ''} waits for an operator${record.previous ? html`; the clusters stay at ${shortRevision(record.previous)} until then` : ''}.</p>
${previewSummary(record, preview)}${pendingForms(record, principal)}</div>`;
}
