import { describeObject, parseObjectKey } from '@tidemark/contracts';
import type { PruneHold } from '@tidemark/status-store';
import { mayAct, type Principal } from '../auth/principal';
import { shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';

function objectName(objectKey: string): string {
  try {
    return describeObject(parseObjectKey(objectKey));
  } catch {
    return objectKey;
  }
}

function confirmForm(hold: PruneHold, principal: Principal | undefined): SafeHtml {
  if (!mayAct(principal)) return html`<p class="muted">Confirming a prune needs the operator role.</p>`;
  return html`<form method="post" action="/prunes/${encodeURIComponent(hold.cluster)}/${encodeURIComponent(hold.source)}/confirm" class="inline">
<input type="hidden" name="_csrf" value="${principal.csrf ?? ''}"><input type="hidden" name="revision" value="${hold.revision}"><input type="hidden" name="decidedAt" value="${hold.decidedAt}">
<button data-action="confirm-prune">Delete these ${hold.removed.length} objects</button></form>`;
}

/** prunesPage lists the prunes that wait for confirmation: each revision that removes too much at once, with every object it would delete. */
export function prunesPage(holds: readonly PruneHold[], principal: Principal | undefined, notice?: string): SafeHtml {
  return html`${notice ? html`<p class="notice" id="notice">${notice}</p>` : ''}<h1>Prunes awaiting confirmation</h1>
${holds.length === 0 ? html`<p class="muted" id="prunes-none">No prune waits: every revision so far removed less than the share that is pruned without asking.</p>` : ''}
${holds.map((hold) => html`<section class="prune-hold" data-source="${hold.source}" data-cluster="${hold.cluster}">
<h2>${hold.source} on ${hold.cluster} <small class="muted">revision ${shortRevision(hold.revision)}, ${timeAgo(hold.decidedAt)}</small></h2>
<p>This revision removes ${hold.removed.length} of the ${hold.total} objects of the source on this cluster (${Math.round((hold.removed.length / Math.max(1, hold.total)) * 100)}%), more than the ${Math.round(hold.threshold * 100)}% pruned without asking. Nothing is deleted until it is confirmed; push the files back to Git to cancel.</p>
<ul class="prune-list">${hold.removed.map((key) => html`<li>${objectName(key)}</li>`)}</ul>${confirmForm(hold, principal)}</section>`)}`;
}
