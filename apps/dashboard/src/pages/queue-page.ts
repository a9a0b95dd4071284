import { describeObject, parseObjectKey } from '@tidemark/contracts';
import type { ClusterQueueFigures, DurationSummary } from '@tidemark/queue';
import { mayAct, type Principal } from '../auth/principal';
import type { QueueView } from '../view/dashboard-data';
import { objectPath } from '../api/object-key-params';
import { duration, shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';

function retryForm(cluster: string, principal: Principal | undefined, objectKey?: string): SafeHtml {
  if (!mayAct(principal)) return html``;
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

/** queueDepthTable shows one cluster's jobs per state and timings, for the queue and cluster pages. */
export function queueDepthTable(figures: ClusterQueueFigures): SafeHtml {
  const { depth } = figures;
  return html`<table class="queue-depth"><tr><th class="num">Waiting</th><th class="num">Active</th><th class="num">Delayed</th><th class="num">Failed jobs</th><th class="num">Failing objects</th><th class="num">Wait p50 / p99</th><th class="num">Run p50 / p99</th></tr>
<tr><td class="num">${depth.waiting + depth.prioritized}</td><td class="num">${depth.active}</td><td class="num">${depth.delayed}</td><td class="num">${depth.failed}</td><td class="num">${figures.failingObjects}</td>
<td class="num">${percentiles(figures.waitMs)}</td><td class="num">${percentiles(figures.processingMs)}</td></tr></table>`;
}

/** queueLegend says what each queue figure counts; Delayed puzzled people most. */
export const queueLegend = html`<dl class="legend" id="queue-legend">
<dt>Waiting</dt><dd>jobs ready to run, waiting for a free worker.</dd>
<dt>Active</dt><dd>jobs a worker is running now.</dd>
<dt>Delayed</dt><dd>jobs planned for later, not stuck: a re-check of an object that is still becoming ready (requeue after a few seconds), or a retry after a transient failure, with backoff.</dd>
<dt>Failed jobs</dt><dd>runs that ended in an error; failing objects are the objects behind them, each counted once.</dd>
<dt>Wait, Run</dt><dd>enqueue to start, and start to end, of recent jobs (median and 99th percentile).</dd></dl>`;

export function clusterQueue(figures: ClusterQueueFigures, principal: Principal | undefined): SafeHtml {
  return html`<section data-queue="${figures.cluster}"><h2>${figures.cluster} <small class="muted">${figures.queueName}${figures.paused ? ' · paused' : ''}</small> ${figures.failingObjects > 0 ? retryForm(figures.cluster, principal) : ''}</h2>
${queueDepthTable(figures)}
${figures.failures.length === 0 ? html`<p class="muted">No failing object.</p>` : html`<table class="failures"><tr><th>Object</th><th>Revision</th><th class="num">Failures</th><th>Code</th><th>Last error</th><th>When</th><th></th></tr>
${figures.failures.map((failure) => html`<tr><td><a href="/objects/${objectPath(figures.cluster, failure.objectKey)}">${objectName(failure.objectKey)}</a></td><td>${shortRevision(failure.revision)}</td><td class="num">${failure.failures}</td>
<td data-category="${failure.category ?? ''}">${failure.code}${failure.terminal ? html` <span class="badge state-stalled">terminal</span>` : failure.category ? html` <span class="badge state-failed">${failure.category}</span>` : ''}</td><td class="error">${failure.message}</td><td>${timeAgo(failure.at)}</td><td>${retryForm(figures.cluster, principal, failure.objectKey)}</td></tr>`)}</table>`}</section>`;
}

/** queuePage: per cluster, jobs per state, timings, and failing objects with their last error. */
export function queuePage(view: QueueView, principal: Principal | undefined, notice?: string): SafeHtml {
  return html`${notice ? html`<p class="notice" id="notice">${notice}</p>` : ''}<h1>Queue</h1>${view.error ? html`<p class="error">Queue figures unavailable: ${view.error}</p>` : ''}
${view.figures.length === 0 && !view.error ? html`<p class="muted">No cluster queue is known yet.</p>` : ''}${view.figures.map((figures) => clusterQueue(figures, principal))}
<h2>What the figures mean</h2>${queueLegend}`;
}
