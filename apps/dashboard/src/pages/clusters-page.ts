import type { ClusterRow } from '../view/dashboard-data';
import { mayAct, type Principal } from '../auth/principal';
import { clusterQueue, queueLegend } from './queue-page';
import { duration, timeAgo } from './format';
import { html, type SafeHtml } from './html';
import { describeFreeze } from '@tidemark/contracts';

const stateTiles = ['Ready', 'Reconciling', 'Waiting', 'Stalled', 'Failed', 'Drifted', 'Suspended'] as const;

/** clusterHref is the page of one cluster. */
export function clusterHref(cluster: string): string {
  return `/clusters/${encodeURIComponent(cluster)}`;
}

/** healthBadge shows reachability from the reconciler's health checks, and a paused queue. */
export function healthBadge(row: ClusterRow): SafeHtml {
  const { health, queue } = row;
  const state = health.state === 'Available' ? 'ready' : health.state === 'Unavailable' ? 'stalled' : 'unknown';
  const title = health.state === 'Unknown' ? 'No health check recorded yet.' : `${health.message ?? health.state} Since ${health.since}; checked ${health.lastCheck}${health.latencyMs !== undefined ? ` in ${health.latencyMs} ms` : ''}.`;
  return html`<span class="badge state-${state}" title="${title}">${health.state}</span>${queue?.paused ? html`<span class="badge state-stalled">queue paused</span>` : ''}${freezeBadge(row)}${agentBadge(row)}`;
}

/** agentBadge says an agent inside the cluster serves it, with its heartbeat as the title. */
export function agentBadge({ agent }: Pick<ClusterRow, 'agent'>): SafeHtml {
  return agent ? html` <span class="badge agent" title="${describeAgent(agent)}">agent</span>` : html``;
}

/** describeAgent is a sentence about the agent serving a cluster: its version, its cluster's, when last heard. */
export function describeAgent(agent: NonNullable<ClusterRow['agent']>): string {
  const beat = agent.heartbeat;
  if (!beat) return 'Served by an agent inside the cluster; no heartbeat from it now.';
  return `Served by an agent inside the cluster: Tidemark ${beat.version}, Kubernetes ${beat.serverVersion ?? 'version unknown'}, last heartbeat ${beat.lastSeen}.`;
}

/** freezeBadge says a cluster is frozen, and by whom, since when and why. */
export function freezeBadge({ freeze }: Pick<ClusterRow, 'freeze'>): SafeHtml {
  return freeze ? html` <span class="badge state-stalled frozen" title="${describeFreeze(freeze)}">frozen</span>` : html``;
}

/** freezeFacts is the cluster page's line about a freeze, and the form that sets or lifts it for an operator. */
function freezeFacts(row: ClusterRow, principal: Principal | undefined): SafeHtml {
  const { freeze } = row;
  const state = freeze
    ? html`<span class="badge state-stalled">frozen</span> by ${freeze.by} since ${freeze.since}${freeze.reason ? html`: ${freeze.reason}` : ''}. Nothing is applied or pruned here until it is unfrozen.`
    : html`not frozen`;
  if (!mayAct(principal) || principal.scope) return html`<dt>Freeze</dt><dd id="cluster-freeze">${state}</dd>`;
  const action = `${clusterHref(row.name)}/${freeze ? 'unfreeze' : 'freeze'}`;
  const form = freeze
    ? html`<form method="post" action="${action}" class="inline"><input type="hidden" name="_csrf" value="${principal.csrf ?? ''}"><button data-action="unfreeze">Unfreeze</button></form>`
    : html`<form method="post" action="${action}" class="inline"><input type="hidden" name="_csrf" value="${principal.csrf ?? ''}"><input name="reason" required maxlength="500" placeholder="Why (shown on every object held back)" aria-label="Reason"> <button data-action="freeze">Freeze</button></form>`;
  return html`<dt>Freeze</dt><dd id="cluster-freeze">${state} ${form}</dd>`;
}

function notReady(row: ClusterRow): number {
  return row.counts.Reconciling + row.counts.Waiting + row.counts.Stalled + row.counts.Failed + row.counts.Unknown;
}

function clusterHealthRow(row: ClusterRow): SafeHtml {
  const { health } = row;
  return html`<tr data-cluster="${row.name}"><th scope="row"><a href="${clusterHref(row.name)}">${row.name}</a></th><td>${healthBadge(row)}</td>
<td>${health.state === 'Unknown' ? '—' : timeAgo(health.since)}</td><td>${health.state === 'Unknown' ? '—' : timeAgo(health.lastCheck)}</td><td class="num">${duration(health.latencyMs)}</td>
<td class="num">${row.counts.total}</td><td class="num">${notReady(row)}</td><td class="num">${row.counts.Drifted}</td><td class="num">${row.queue ? row.queue.failingObjects : '—'}</td>
<td class="${health.state === 'Unavailable' || row.freeze ? 'error' : 'muted'}">${[health.message, row.freeze ? `Frozen: ${describeFreeze(row.freeze)}.` : undefined].filter(Boolean).join(' ')}</td></tr>`;
}

/** clustersPage: each cluster's reachability as the health checks last saw it, with a link to its own page. */
export function clustersPage(clusters: readonly ClusterRow[], queueError: string | undefined): SafeHtml {
  return html`<h1>Clusters</h1>${queueError ? html`<p class="error">Queue figures unavailable: ${queueError}</p>` : ''}
${clusters.length === 0 ? html`<p class="muted">No cluster has records yet.</p>` : html`<div class="scroll"><table id="clusters"><caption class="visually-hidden">Clusters and their health</caption>
<tr><th scope="col">Cluster</th><th scope="col">Health</th><th scope="col">Since</th><th scope="col">Last check</th><th scope="col" class="num">Check latency</th><th scope="col" class="num">Objects</th><th scope="col" class="num">Not ready</th><th scope="col" class="num">Drifted</th><th scope="col" class="num">Failing objects</th><th scope="col">Message</th></tr>
${clusters.map(clusterHealthRow)}</table></div>`}`;
}

export interface ClusterPageInput {
  row: ClusterRow;
  queueError?: string;
  principal: Principal | undefined;
  /** Charts of the cluster's recent figures, when recorded. */
  charts?: SafeHtml;
}

/** clusterPage: one cluster's health, its objects by state, its queue, and what the figures mean. */
export function clusterPage({ row, queueError, principal, charts }: ClusterPageInput): SafeHtml {
  const { health, counts } = row;
  const objects = (condition?: string) => `/objects?cluster=${encodeURIComponent(row.name)}${condition ? `&condition=${condition}` : ''}`;
  return html`<h1>Cluster ${row.name}</h1>
<dl class="facts" id="cluster-health"><dt>Health</dt><dd>${healthBadge(row)}</dd>
<dt>Since</dt><dd>${health.state === 'Unknown' ? html`<span class="muted">no health check recorded yet</span>` : timeAgo(health.since)}</dd>
<dt>Last check</dt><dd>${health.state === 'Unknown' ? '—' : timeAgo(health.lastCheck)}${health.latencyMs !== undefined ? html`, answered in ${duration(health.latencyMs)}` : ''}</dd>
${health.message ? html`<dt>Message</dt><dd class="${health.state === 'Unavailable' ? 'error' : ''}">${health.message}</dd>` : ''}
${freezeFacts(row, principal)}
<dt>Served by</dt><dd id="cluster-served-by">${row.agent ? describeAgent(row.agent) : 'the hub\'s workers'}</dd>
<dt>Queue</dt><dd>${row.queue ? (row.queue.paused ? html`<span class="badge state-stalled">paused</span> while the cluster is unavailable` : 'running') : html`<span class="muted">${queueError ? `unavailable: ${queueError}` : 'not known yet'}</span>`}</dd></dl>
<h2>Objects</h2><div class="tiles" id="cluster-counts"><a class="tile" href="${objects()}"><strong>${counts.total}</strong>objects</a>
${stateTiles.map((state) => html`<a class="tile" href="${objects(state)}"><strong class="state-${state.toLowerCase()}">${counts[state]}</strong>${state}</a>`)}</div>
${charts ?? ''}
${row.queue ? clusterQueue(row.queue, principal) : ''}
<h2>What the queue figures mean</h2>${queueLegend}`;
}
