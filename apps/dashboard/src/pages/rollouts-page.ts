import type { PreviewReport, RolloutCommandVerb, RolloutRecord } from '@tidemark/contracts';
import { mayAct, type Principal } from '../auth/principal';
import { shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';
import { pendingSection } from './rollout-pending';
import { rolloutTimeline } from './rollout-timeline';

/** The actions a rollout in each phase can take, as rolloutCommandRefusal allows them (the driver checks again). */
function verbsFor(record: RolloutRecord): RolloutCommandVerb[] {
  if (record.paused) return ['resume', 'abort'];
  switch (record.phase) {
    case 'waiting-approval': return ['promote', 'pause', 'abort'];
    case 'soaking': return ['promote', 'pause', 'abort'];
    case 'progressing': return ['pause', 'abort'];
    case 'halted': return ['resume', 'abort'];
    default: return [];
  }
}

function actionForms(record: RolloutRecord, principal: Principal | undefined): SafeHtml {
  const verbs = record.previous ? verbsFor(record) : verbsFor(record).filter((verb) => verb !== 'abort');
  if (verbs.length === 0) return html``;
  if (!mayAct(principal)) return html`<p class="muted">Promoting, pausing, resuming and aborting need the operator role.</p>`;
  return html`${verbs.map((verb) => html`<form method="post" action="/rollouts/${encodeURIComponent(record.source)}/${verb}" class="inline">
<input type="hidden" name="_csrf" value="${principal.csrf ?? ''}"><input type="hidden" name="revision" value="${record.revision}"><button data-action="rollout-${verb}">${verb}</button></form>`)}`;
}

function took(reachedAt: string | undefined, readyAt: string | undefined): string {
  if (!reachedAt || !readyAt) return '';
  return `${Math.max(0, Math.round((Date.parse(readyAt) - Date.parse(reachedAt)) / 1000))} s`;
}

/** rolloutSection is one source's rollout: its phase, why it halted, and waves × clusters with each cell's target, state and time. */
function rolloutSection(record: RolloutRecord, principal: Principal | undefined, preview: PreviewReport | undefined): SafeHtml {
  const phase = record.paused ? `${record.phase}, paused` : record.phase;
  return html`<section class="rollout" data-source="${record.source}" data-phase="${record.phase}">
<h2>${record.source} <small class="muted">${shortRevision(record.revision)} · ${phase} · started ${timeAgo(record.startedAt)}${record.previous ? html` · last good ${shortRevision(record.previous)}` : ''}</small></h2>
${record.halt ? html`<p class="notice" data-halt="${record.halt.cluster}">Halted on ${record.halt.cluster}${record.halt.objectKey ? html`, ${record.halt.objectKey}` : ''}: ${record.halt.reason}</p>` : ''}
${record.held ? html`<p class="notice" data-held="${record.held.cluster}">Waiting on ${record.held.cluster}: ${record.held.reason} (since ${timeAgo(record.held.since)}; the gate's clock stands still).</p>` : ''}
${record.phase === 'soaking' && record.soakUntil ? html`<p>Soaking until ${record.soakUntil}.</p>` : ''}
${record.phase === 'waiting-approval' ? pendingSection(record, preview, principal) : ''}
${record.lastAction ? html`<p class="muted">Last action: ${record.lastAction.action} by ${record.lastAction.by}, ${timeAgo(record.lastAction.at)}.</p>` : ''}
<table class="rollout-matrix"><thead><tr><th>Wave</th><th>Clusters</th></tr></thead><tbody>
${record.waves.map((wave, index) => html`<tr${index === record.wave ? html` aria-current="step"` : ''}><th>${wave.name}</th><td>${wave.clusters.map((cluster) => {
    const cell = record.cells[cluster];
    return html`<span class="rollout-cell state-${cell?.state ?? 'waiting'}" data-cluster="${cluster}" data-state="${cell?.state ?? 'waiting'}"><b>${cluster}</b> ${shortRevision(record.targets[cluster])} ${cell?.state ?? 'waiting'} ${took(cell?.reachedAt, cell?.readyAt)}</span> `;
  })}</td></tr>`)}
</tbody></table>${rolloutTimeline(record)}${actionForms(record, principal)}</section>`;
}

/** rolloutsPage lists every source's rollout in waves; `previews` holds a pending revision's preview by source. */
export function rolloutsPage(records: readonly RolloutRecord[], principal: Principal | undefined, previews: ReadonlyMap<string, PreviewReport> = new Map()): SafeHtml {
  return html`<h1>Rollouts</h1>
${records.length === 0 ? html`<p class="muted" id="rollouts-none">No source rolls out in waves: every new revision goes to every placed cluster at once (see docs/rollouts.md).</p>` : ''}
${records.map((record) => rolloutSection(record, principal, previews.get(record.source)))}`;
}
