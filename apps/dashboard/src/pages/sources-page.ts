import type { SourceProblem } from '@tidemark/contracts';
import type { SourceRow } from '../view/dashboard-data';
import { mayAct, type Principal } from '../auth/principal';
import { emptyCounts, type StateCounts } from '../view/overview';
import { clusterHref } from './clusters-page';
import { duration, shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';
import { sourceHref, sourceState } from './overview-page';

function headCommit(source: SourceRow): SafeHtml {
  if (!source.commitMessage) return html`${shortRevision(source.revision)}`;
  return html`<span class="commit">${source.commitMessage}</span> <span class="muted">by ${source.commitAuthor ?? 'unknown'}, ${timeAgo(source.commitTime)}</span> ${shortRevision(source.revision)}`;
}

function sourcesRow(source: SourceRow): SafeHtml {
  return html`<tr data-source="${source.name}"><th scope="row"><a href="${sourceHref(source.name)}">${source.name}</a></th><td>${source.ref ?? '—'}</td><td>${headCommit(source)}</td>
<td>${timeAgo(source.polledAt)}</td><td class="num">${source.declaredObjects ?? '—'}</td><td class="num">${source.sourceErrors ?? '—'}</td><td>${sourceState(source)}</td></tr>`;
}

function sourceActionForm(source: string, verb: string, label: string, principal: Principal): SafeHtml {
  return html`<form method="post" action="${sourceHref(source)}/${verb}" class="inline"><input type="hidden" name="_csrf" value="${principal.csrf ?? ''}"><button data-action="${verb}">${label}</button></form>`;
}

/** sourceActions are an operator's buttons: poll now, and suspend or resume polling. */
function sourceActions(source: SourceRow, principal: Principal | undefined): SafeHtml {
  if (!mayAct(principal)) return html``;
  const toggle = source.suspended ? sourceActionForm(source.name, 'resume', 'Resume polling', principal) : sourceActionForm(source.name, 'suspend', 'Suspend polling', principal);
  return html`<div class="actions" id="source-actions">${sourceActionForm(source.name, 'fetch', 'Fetch now', principal)}${toggle}</div>`;
}

/** sourcesPage lists each Git source with what it follows, its head commit and how its last poll went. */
export function sourcesPage(sources: readonly SourceRow[]): SafeHtml {
  return html`<h1>Sources</h1>
${sources.length === 0 ? html`<p class="muted">No source has reported yet.</p>` : html`<div class="scroll"><table id="sources"><caption class="visually-hidden">Git sources</caption>
<tr><th scope="col">Source</th><th scope="col">Follows</th><th scope="col">Head commit</th><th scope="col">Last poll</th><th scope="col" class="num"><abbr title="Kubernetes objects the source declares at its revision">Objects</abbr></th><th scope="col" class="num">Problems</th><th scope="col">State</th></tr>
${sources.map(sourcesRow)}</table></div>`}`;
}

function problemsTable(source: SourceRow): SafeHtml {
  const problems: readonly SourceProblem[] = source.problems ?? [];
  if ((source.sourceErrors ?? 0) === 0) return html`<p class="muted" id="problems-none">No problem in the source at this revision.</p>`;
  const more = (source.sourceErrors ?? 0) - problems.length;
  return html`<table id="problems"><caption class="visually-hidden">Problems in the source</caption><tr><th scope="col">File and line</th><th scope="col">Problem</th><th scope="col">Code</th></tr>
${problems.map((problem) => html`<tr><td><code>${problem.path}${problem.line !== undefined ? `:${problem.line}` : ''}</code></td><td class="error">${problem.message}</td><td>${problem.code}</td></tr>`)}</table>
${more > 0 ? html`<p class="muted">and ${more} more, not kept.</p>` : ''}`;
}

/** warningsTable lists what a parser or renderer warned about: shown only, nothing is held back. */
function warningsTable(source: SourceRow): SafeHtml {
  const warnings: readonly SourceProblem[] = source.warnings ?? [];
  if ((source.sourceWarnings ?? 0) === 0) return html`<p class="muted" id="warnings-none">No warning from the parser or a renderer at this revision.</p>`;
  const more = (source.sourceWarnings ?? 0) - warnings.length;
  return html`<table id="warnings"><caption class="visually-hidden">Warnings about files in the source</caption><tr><th scope="col">File and line</th><th scope="col">Warning</th><th scope="col">Code</th></tr>
${warnings.map((warning) => html`<tr><td><code>${warning.path}${warning.line !== undefined ? `:${warning.line}` : ''}</code></td><td class="state-drifted">${warning.message}</td><td>${warning.code}</td></tr>`)}</table>
${more > 0 ? html`<p class="muted">and ${more} more, not kept.</p>` : ''}`;
}

function objectsPerCluster(source: SourceRow): SafeHtml {
  const clusters = Object.keys(source.byCluster).sort();
  if (clusters.length === 0) return html`<p class="muted">No object of this source has a record on any cluster yet.</p>`;
  const objects = (cluster: string, condition?: string) => `/objects?source=${encodeURIComponent(source.name)}&cluster=${encodeURIComponent(cluster)}${condition ? `&condition=${condition}` : ''}`;
  return html`<table id="source-clusters"><caption class="visually-hidden">Objects of the source per cluster</caption>
<tr><th scope="col">Cluster</th><th scope="col" class="num">Objects</th><th scope="col" class="num">Ready</th><th scope="col" class="num">Reconciling</th><th scope="col" class="num">Waiting</th><th scope="col" class="num">Stalled</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Drifted</th></tr>
${clusters.map((cluster) => {
    const counts = source.byCluster[cluster] ?? emptyCounts();
    return html`<tr data-cluster="${cluster}"><th scope="row"><a href="${clusterHref(cluster)}">${cluster}</a></th><td class="num"><a href="${objects(cluster)}">${counts.total}</a></td>
<td class="num">${counts.Ready}</td><td class="num">${counts.Reconciling}</td><td class="num">${counts.Waiting > 0 ? html`<a href="${objects(cluster, 'Waiting')}">${counts.Waiting}</a>` : '0'}</td><td class="num">${counts.Stalled > 0 ? html`<a href="${objects(cluster, 'Stalled')}">${counts.Stalled}</a>` : '0'}</td>
<td class="num">${counts.Failed > 0 ? html`<a href="${objects(cluster, 'Failed')}">${counts.Failed}</a>` : '0'}</td><td class="num">${counts.Drifted > 0 ? html`<a href="${objects(cluster, 'Drifted')}">${counts.Drifted}</a>` : '0'}</td></tr>`;
  })}</table>`;
}

/** notReady counts what is not Ready on a cluster: reconciling, waiting, stalled, failed or unknown. */
function notReady(counts: StateCounts): number {
  return counts.total - counts.Ready;
}

/** renderUnits lists the source's Kustomize, Helm and other render units with their objects per cluster. */
function renderUnits(source: SourceRow): SafeHtml {
  if (source.units.length === 0) return html`<p class="muted" id="units-none">No render unit: every object comes from a plain YAML file.</p>`;
  const clusters = Object.keys(source.byCluster).sort();
  return html`<div class="scroll"><table id="render-units"><caption class="visually-hidden">Render units of the source and their objects per cluster</caption>
<tr><th scope="col">Folder</th><th scope="col">Renderer</th><th scope="col" class="num">Objects</th>${clusters.map((cluster) => html`<th scope="col">${cluster}</th>`)}</tr>
${source.units.map((unit) => html`<tr data-unit="${unit.folder}"><th scope="row"><code>${unit.folder}</code></th><td>${unit.renderer}</td><td class="num">${unit.objects}</td>
${clusters.map((cluster) => {
    const counts = unit.byCluster[cluster];
    if (!counts) return html`<td class="muted">—</td>`;
    const behind = notReady(counts);
    return html`<td data-cluster="${cluster}">${counts.Ready} ready${behind > 0 ? html`, <span class="error">${behind} not ready</span>` : ''}${counts.Drifted > 0 ? html`, <span class="state-drifted">${counts.Drifted} drifted</span>` : ''}</td>`;
  })}</tr>`)}</table></div>`;
}

export interface SourcePageInput {
  source: SourceRow;
  /** The commits timeline, when recorded. */
  timeline?: SafeHtml;
  principal?: Principal;
  notice?: string;
}

/** sourcePage: one source's ref, head commit, last poll, problems with file and line, and its objects per cluster. */
export function sourcePage({ source, timeline, principal, notice }: SourcePageInput): SafeHtml {
  return html`${notice ? html`<p class="notice" id="notice">${notice}</p>` : ''}<h1>Source ${source.name}</h1>
${sourceActions(source, principal)}
<dl class="facts" id="source-facts"><dt>Follows</dt><dd>${source.ref ?? html`<span class="muted">not recorded yet</span>`}</dd>
<dt>Head commit</dt><dd id="head-commit">${headCommit(source)}</dd>
<dt>Last poll</dt><dd>${timeAgo(source.polledAt)}${source.durationMs !== undefined ? html`, took ${duration(source.durationMs)}` : ''}${source.leader ? html` <span class="muted">by ${source.leader}</span>` : ''}</dd>
<dt>State</dt><dd>${sourceState(source)}</dd>
<dt>Objects</dt><dd id="source-objects">${source.declaredObjects ?? '—'} declared in Git at this revision; ${source.objects} with a status record</dd></dl>
<h2>Problems</h2>${problemsTable(source)}
<h2>Warnings</h2>${warningsTable(source)}
<h2>Render units</h2>${renderUnits(source)}
<h2>Objects per cluster</h2>${objectsPerCluster(source)}
${timeline ?? ''}`;
}
