import { describeObject, parseObjectKey } from '@tidemark/contracts';
import type { ClusterQueueFigures, DurationSummary } from '@tidemark/queue';
import type { Principal } from '../auth/principal';
import type { ClusterRow, QueueView } from '../view/dashboard-data';
import { objectPath } from '../api/object-key-params';
import { clusterHeader, clusterRow } from './overview-page';
import { duration, shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';

/** clustersPage: each cluster's health, counts and queue. */
export function clustersPage(clusters: readonly ClusterRow[], queueError: string | undefined): SafeHtml {
  return html`<h1>Clusters</h1>${queueError ? html`<p class="error">Queue figures unavailable: ${queueError}</p>` : ''}
${clusters.length === 0 ? html`<p class="muted">No cluster has records yet.</p>` : html`<table id="clusters">${clusterHeader}${clusters.map(clusterRow)}</table>`}`;
}

function retryForm(cluster: string, principal: Principal | undefined, objectKey?: string): SafeHtml {
  if (principal?.role !== 'operator') return html``;
  return html`<form method="post" action="/queue/${encodeURIComponent(cluster)}/retry" class="inline"><input type="hidden" name="_csrf" value="${principal.csrf ?? ''}">
${objectKey ? html`<input type="hidden" name="objectKey" value="${objectKey}">` : ''}<button>${objectKey ? 'Retry' : 'Retry all failed'}</button></form>`;
}

/** objectName shows `Kind namespace/name`, never the internal key. */
function objectName(objectKey: string): string {
  try {
    return describeObject(parseObjectKey(objectKey));
  } catch {
    return objectKey;
  }
}

/** percentiles shows p50 / p99, or a dash before any sample exists. */
function percentiles(summary: DurationSummary): string {
  return summary.count === 0 ? '—' : `${duration(summary.p50)} / ${duration(summary.p99)}`;
}

function clusterQueue(figures: ClusterQueueFigures, principal: Principal | undefined): SafeHtml {
  const { depth } = figures;
  return html`<section data-queue="${figures.cluster}"><h2>${figures.cluster} <small class="muted">${figures.queueName}${figures.paused ? ' · paused' : ''}</small> ${figures.failingObjects > 0 ? retryForm(figures.cluster, principal) : ''}</h2>
<table><tr><th class="num">Waiting</th><th class="num">Active</th><th class="num">Delayed</th><th class="num">Failed jobs</th><th class="num">Failing objects</th><th class="num">Wait p50 / p99</th><th class="num">Run p50 / p99</th></tr>
<tr><td class="num">${depth.waiting + depth.prioritized}</td><td class="num">${depth.active}</td><td class="num">${depth.delayed}</td><td class="num">${depth.failed}</td><td class="num">${figures.failingObjects}</td>
<td class="num">${percentiles(figures.waitMs)}</td><td class="num">${percentiles(figures.processingMs)}</td></tr></table>
${figures.failures.length === 0 ? html`<p class="muted">No failing object.</p>` : html`<table class="failures"><tr><th>Object</th><th>Revision</th><th class="num">Failures</th><th>Code</th><th>Last error</th><th>When</th><th></th></tr>
${figures.failures.map((failure) => html`<tr><td><a href="/objects/${objectPath(figures.cluster, failure.objectKey)}">${objectName(failure.objectKey)}</a></td><td>${shortRevision(failure.revision)}</td><td class="num">${failure.failures}</td>
<td data-category="${failure.category ?? ''}">${failure.code}${failure.terminal ? html` <span class="badge state-stalled">terminal</span>` : failure.category ? html` <span class="badge state-failed">${failure.category}</span>` : ''}</td><td class="error">${failure.message}</td><td>${timeAgo(failure.at)}</td><td>${retryForm(figures.cluster, principal, failure.objectKey)}</td></tr>`)}</table>`}</section>`;
}

/** queuePage: per cluster, jobs per state, timings, and failing objects with their last error. */
export function queuePage(view: QueueView, principal: Principal | undefined, notice?: string): SafeHtml {
  return html`${notice ? html`<p class="notice" id="notice">${notice}</p>` : ''}<h1>Queue</h1>${view.error ? html`<p class="error">Queue figures unavailable: ${view.error}</p>` : ''}
${view.figures.length === 0 && !view.error ? html`<p class="muted">No cluster queue is known yet.</p>` : ''}${view.figures.map((figures) => clusterQueue(figures, principal))}`;
}
