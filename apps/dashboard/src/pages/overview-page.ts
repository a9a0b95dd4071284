import type { Overview, SourceRow } from '../view/dashboard-data';
import type { ClusterRow } from '../view/dashboard-data';
import { duration, shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';

const tiles = ['Ready', 'Reconciling', 'Waiting', 'Stalled', 'Failed', 'Drifted', 'Suspended'] as const;

function sourceRow(source: SourceRow): SafeHtml {
  const state = source.state === 'error'
    ? html`<span class="error" title="${source.errorAt ?? ''}">${source.error ?? 'failed'}</span>`
    : source.state === 'ok' ? html`<span class="cond-good">ok</span>` : html`<span class="muted">not polled yet</span>`;
  return html`<tr data-source="${source.name}"><td>${source.name}</td><td>${shortRevision(source.revision)}</td><td>${timeAgo(source.polledAt)}</td>
<td class="num">${duration(source.durationMs)}</td><td class="num">${source.fetchedObjects ?? '—'}</td><td class="num">${source.sourceErrors ?? '—'}</td><td>${state}</td></tr>`;
}

/** healthBadge shows reachability from the reconciler's health checks, and a paused queue. */
function healthBadge({ health, queue }: ClusterRow): SafeHtml {
  const state = health.state === 'Available' ? 'ready' : health.state === 'Unavailable' ? 'stalled' : 'unknown';
  const title = health.state === 'Unknown' ? 'No health check recorded yet.' : `${health.message ?? health.state} Since ${health.since}; checked ${health.lastCheck}${health.latencyMs !== undefined ? ` in ${health.latencyMs} ms` : ''}.`;
  return html`<span class="badge state-${state}" title="${title}">${health.state}</span>${queue?.paused ? html`<span class="badge state-stalled">queue paused</span>` : ''}${health.state === 'Unavailable' && health.message ? html`<div class="error">${health.message}</div>` : ''}`;
}

/** clusterRow is shared by the overview and the clusters page. */
export function clusterRow(cluster: ClusterRow): SafeHtml {
  const { counts, queue } = cluster;
  const depth = queue?.depth;
  const health = healthBadge(cluster);
  return html`<tr data-cluster="${cluster.name}"><td><a href="/objects?cluster=${encodeURIComponent(cluster.name)}">${cluster.name}</a></td><td>${health}</td>
<td class="num">${counts.total}</td><td class="num">${counts.Ready}</td><td class="num">${counts.Reconciling}</td><td class="num">${counts.Waiting}</td><td class="num">${counts.Stalled}</td><td class="num">${counts.Failed}</td><td class="num">${counts.Drifted}</td>
<td class="num">${depth?.waiting ?? '—'}</td><td class="num">${depth?.active ?? '—'}</td><td class="num">${depth?.delayed ?? '—'}</td><td class="num">${depth?.failed ?? '—'}</td><td class="num">${queue?.failingObjects ?? '—'}</td></tr>`;
}

export const clusterHeader = html`<tr><th>Cluster</th><th>Health</th><th class="num">Objects</th><th class="num">Ready</th><th class="num">Reconciling</th><th class="num">Waiting</th><th class="num">Stalled</th><th class="num">Failed</th><th class="num">Drifted</th>
<th class="num">Waiting</th><th class="num">Active</th><th class="num">Delayed</th><th class="num">Failed jobs</th><th class="num">Failing objects</th></tr>`;

/** overviewPage: counts, sources, clusters with their queues. */
export function overviewPage(overview: Overview): SafeHtml {
  const counts = overview.counts;
  return html`<h1>Overview</h1>
<div class="tiles" id="counts"><a class="tile" href="/objects"><strong data-count="total">${counts.total}</strong>objects × clusters</a>
${tiles.map((state) => html`<a class="tile" href="/objects?condition=${state}"><strong data-count="${state}" class="state-${state.toLowerCase()}">${counts[state]}</strong>${state}</a>`)}</div>
<h2>Sources</h2>
${overview.sources.length === 0 ? html`<p class="muted">No source has reported yet.</p>` : html`<table id="sources"><tr><th>Source</th><th>Revision</th><th>Last poll</th><th class="num">Poll time</th><th class="num">Objects</th><th class="num">Source errors</th><th>State</th></tr>${overview.sources.map(sourceRow)}</table>`}
<h2>Clusters and queues</h2>
${overview.queueError ? html`<p class="error">Queue figures unavailable: ${overview.queueError}</p>` : ''}
<table id="clusters">${clusterHeader}${overview.clusters.map(clusterRow)}</table>`;
}
