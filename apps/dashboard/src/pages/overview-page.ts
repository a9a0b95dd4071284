import type { ClusterRow, Overview, SourceRow } from '../view/dashboard-data';
import { clusterHref, healthBadge } from './clusters-page';
import { duration, shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';

const tiles = ['Ready', 'Reconciling', 'Waiting', 'Stalled', 'Failed', 'Drifted', 'Suspended'] as const;

/** sourceHref is the page of one source. */
export function sourceHref(source: string): string {
  return `/sources/${encodeURIComponent(source)}`;
}

/** sourceState says whether the last poll worked. */
export function sourceState(source: SourceRow): SafeHtml {
  if (source.state === 'error') return html`<span class="error" title="${source.errorAt ?? ''}">${source.error ?? 'failed'}</span>`;
  if (source.state === 'degraded') return html`<span class="state-drifted" title="Some files in Git cannot be read; see the source's problems.">degraded (${source.sourceErrors ?? 0} files)</span>`;
  return source.state === 'ok' ? html`<span class="cond-good">ok</span>` : html`<span class="muted">not polled yet</span>`;
}

function sourceRow(source: SourceRow): SafeHtml {
  return html`<tr data-source="${source.name}"><th scope="row"><a href="${sourceHref(source.name)}">${source.name}</a></th><td>${shortRevision(source.revision)}</td><td>${timeAgo(source.polledAt)}</td>
<td class="num">${duration(source.durationMs)}</td><td class="num" data-objects>${source.declaredObjects ?? source.objects}</td><td class="num">${source.sourceErrors ?? '—'}</td><td>${sourceState(source)}</td></tr>`;
}

function clusterRow(cluster: ClusterRow): SafeHtml {
  const { counts, queue } = cluster;
  const depth = queue?.depth;
  return html`<tr data-cluster="${cluster.name}"><th scope="row"><a href="${clusterHref(cluster.name)}">${cluster.name}</a></th><td>${healthBadge(cluster)}${cluster.health.state === 'Unavailable' && cluster.health.message ? html`<div class="error">${cluster.health.message}</div>` : ''}</td>
<td class="num">${counts.total}</td><td class="num">${counts.Ready}</td><td class="num">${counts.Reconciling}</td><td class="num">${counts.Waiting}</td><td class="num">${counts.Stalled}</td><td class="num">${counts.Failed}</td><td class="num">${counts.Drifted}</td>
<td class="num">${depth ? depth.waiting + depth.prioritized : '—'}</td><td class="num">${depth?.active ?? '—'}</td><td class="num">${depth?.delayed ?? '—'}</td><td class="num">${queue?.failingObjects ?? '—'}</td></tr>`;
}

const clusterHeader = html`<tr><th scope="col">Cluster</th><th scope="col">Health</th><th scope="col" class="num">Objects</th><th scope="col" class="num">Ready</th><th scope="col" class="num">Reconciling</th><th scope="col" class="num"><abbr title="Waiting for something else (a CRD, a namespace, a referenced object) before it can apply">Waiting</abbr></th><th scope="col" class="num">Stalled</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Drifted</th>
<th scope="col" class="num">Jobs waiting</th><th scope="col" class="num">Jobs active</th><th scope="col" class="num"><abbr title="Planned for later, not stuck: re-checks of objects still becoming ready, and retries with backoff. See the queue page.">Jobs delayed</abbr></th><th scope="col" class="num">Failing objects</th></tr>`;

/** overviewPage: counts, sources, clusters with their queues. */
export function overviewPage(overview: Overview): SafeHtml {
  const counts = overview.counts;
  return html`<h1>Overview</h1>
<div class="tiles" id="counts"><a class="tile" href="/objects"><strong data-count="total">${counts.total}</strong>objects × clusters</a>
${tiles.map((state) => html`<a class="tile" href="/objects?condition=${state}"><strong data-count="${state}" class="state-${state.toLowerCase()}">${counts[state]}</strong>${state}</a>`)}</div>
<h2>Sources</h2>
${overview.sources.length === 0 ? html`<p class="muted">No source has reported yet.</p>` : html`<div class="scroll"><table id="sources"><tr><th scope="col">Source</th><th scope="col">Revision</th><th scope="col">Last poll</th><th scope="col" class="num">Poll time</th><th scope="col" class="num"><abbr title="Git objects of the source that Tidemark has a record of, each counted once">Objects</abbr></th><th scope="col" class="num">Source errors</th><th scope="col">State</th></tr>${overview.sources.map(sourceRow)}</table></div>`}
<h2>Clusters and queues</h2>
${overview.queueError ? html`<p class="error">Queue figures unavailable: ${overview.queueError}</p>` : ''}
<div class="scroll"><table id="clusters">${clusterHeader}${overview.clusters.map(clusterRow)}</table></div>`;
}
