import type { AuditFilter, ListedAuditRecord } from '@tidemark/status-store';
import { html, type SafeHtml } from './html';
import { jsonValue, timeAgo } from './format';

const resultOptions = ['ok', 'denied', 'error'] as const;

function filterForm(filter: AuditFilter): SafeHtml {
  return html`<form class="filters" method="get" action="/audit">
<label>Actor<input type="search" name="actor" value="${filter.actor ?? ''}" placeholder="token or user name"></label>
<label>Action<input type="search" name="action" value="${filter.action ?? ''}" placeholder="e.g. object.suspend"></label>
<label>Target<input type="search" name="target" value="${filter.target ?? ''}" placeholder="cluster, source or object"></label>
<label>Result<select name="result"><option value="">any result</option>${resultOptions.map((result) => html`<option value="${result}"${result === filter.result ? html` selected` : ''}>${result}</option>`)}</select></label>
<button>Filter</button> <a href="/audit">Clear</a></form>`;
}

function targetText(record: ListedAuditRecord): string {
  return `${record.target.type} ${record.target.cluster ? `${record.target.cluster}/` : ''}${record.target.name}`;
}

function actorText(record: ListedAuditRecord): string {
  const { actor } = record;
  return `${actor.name}${actor.role ? ` (${actor.role})` : ''}${actor.groups && actor.groups.length > 0 ? ` [${actor.groups.join(', ')}]` : ''}`;
}

/** auditPage: who did what, on which target, with what result, newest first, with filters. */
export function auditPage(records: readonly ListedAuditRecord[], filter: AuditFilter): SafeHtml {
  return html`<h1>Audit trail</h1><p class="muted">Every action and every refused attempt, newest first. <code>tidemark audit verify</code> checks that none was deleted or edited.</p>
${filterForm(filter)}
${records.length === 0 ? html`<p class="muted">No record matches.</p>` : html`<table class="audit"><tr><th>When</th><th>Actor</th><th>Via</th><th>Action</th><th>Target</th><th>Parameters</th><th>Result</th><th>Client</th><th>Request</th></tr>
${records.map((record) => html`<tr data-audit-id="${record.id}"><td title="${record.at}">${timeAgo(record.at)}</td><td>${actorText(record)}</td><td>${record.actor.via ?? ''}</td><td>${record.action}</td><td>${targetText(record)}</td>
<td><code>${Object.keys(record.parameters).length === 0 ? '' : jsonValue(record.parameters)}</code></td><td><span class="badge result-${record.result}">${record.result} ${record.status}</span></td><td>${record.client ?? ''}</td><td>${record.requestId ?? ''}</td></tr>`)}</table>`}`;
}
