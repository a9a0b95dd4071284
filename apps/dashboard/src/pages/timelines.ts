import type { ClusterSample, ReconcileRecord, SourceCommit } from '@tidemark/contracts';
import type { CommitTimeline, ObjectTimeline } from '../view/dashboard-data';
import { durationBars, revisionLanes, sparkline, type DurationBar, type LaneRun } from './charts';
import { duration, shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';

const count = (noun: string) => (value: number) => `${value} ${noun}${value === 1 ? '' : 's'}`;

/** clusterCharts: the last hour of a cluster's queue depth, run durations and failed runs per sampling interval. */
export function clusterCharts(samples: readonly ClusterSample[]): SafeHtml {
  if (samples.length === 0) return html`<h2>Last hour</h2><p class="muted" id="charts-none">No sample yet: the reconciler records one every 15 seconds.</p>`;
  const series = (pick: (sample: ClusterSample) => number | undefined) => samples.map((sample) => ({ at: sample.at, value: pick(sample) }));
  return html`<h2>Last hour</h2><div class="charts" id="cluster-charts">
${sparkline({ id: 'chart-queued', title: 'Queued jobs', points: series((sample) => sample.queued), format: count('job') })}
${sparkline({ id: 'chart-run-p50', title: 'Reconcile p50', points: series((sample) => sample.runP50), format: (value) => duration(value) })}
${sparkline({ id: 'chart-run-p99', title: 'Reconcile p99', points: series((sample) => sample.runP99), format: (value) => duration(value) })}
${sparkline({ id: 'chart-failed-runs', title: 'Failed runs per interval', points: series((sample) => sample.failedRuns), format: count('run') })}</div>`;
}

function commitLabel(commit: SourceCommit): string {
  return `${commit.revision.slice(0, 7)} ${commit.message}`;
}

/** sourceTimeline: each fetched commit, who made it and when, and when it reached each cluster. */
export function sourceTimeline({ commits, live }: CommitTimeline, clusters: readonly string[]): SafeHtml {
  if (commits.length === 0) return html`<h2>Commits</h2><p class="muted" id="commits-none">No commit fetched since the reconciler began keeping them.</p>`;
  const bars: DurationBar[] = commits.slice(0, 10).flatMap((commit) => clusters.map((cluster) => {
    const reached = live.get(commit.revision)?.get(cluster)?.last;
    return { label: commitLabel(commit), cluster, ms: reached ? Math.max(0, Date.parse(reached) - Date.parse(commit.time)) : undefined };
  }));
  return html`<h2>Commits</h2>${durationBars('commit-to-live', 'Commit to live, per cluster (newest commits first)', bars)}
<div class="scroll"><table id="commits"><caption class="visually-hidden">Commits and when they reached each cluster</caption>
<tr><th scope="col">Commit</th><th scope="col">Author</th><th scope="col">Committed</th><th scope="col">Fetched</th>${clusters.map((cluster) => html`<th scope="col">Live on ${cluster}</th>`)}</tr>
${commits.map((commit) => html`<tr data-revision="${commit.revision}"><th scope="row">${shortRevision(commit.revision)} ${commit.message}</th><td>${commit.author}</td><td>${timeAgo(commit.time)}</td><td>${timeAgo(commit.fetchedAt)}</td>
${clusters.map((cluster) => {
    const reached = live.get(commit.revision)?.get(cluster);
    return reached ? html`<td data-cluster="${cluster}">${timeAgo(reached.last)} <span class="muted">(${duration(Date.parse(reached.last) - Date.parse(commit.time))} after the commit)</span></td>` : html`<td data-cluster="${cluster}" class="muted">not yet</td>`;
  })}</tr>`)}</table></div>`;
}

/** firstLive is when the first successful run at a revision ended, from a cluster's history. */
function firstLive(history: readonly ReconcileRecord[], revision: string): number | undefined {
  const ends = history.filter((record) => record.revision === revision && record.result === 'succeeded').map((record) => Date.parse(record.startedAt) + record.durationMs);
  return ends.length > 0 ? Math.min(...ends) : undefined;
}

/** objectTimeline: the object's runs per cluster over time, and commit-to-live per revision and cluster. */
export function objectTimeline({ histories, commits }: ObjectTimeline): SafeHtml {
  const lanes = new Map<string, LaneRun[]>([...histories].map(([cluster, history]) => [cluster, history.map((record) => ({ at: record.startedAt, result: record.result, revision: record.revision }))]));
  if ([...lanes.values()].every((runs) => runs.length === 0)) return html``;
  const commitOf = new Map(commits.map((commit) => [commit.revision, commit]));
  const revisions = [...new Set([...histories.values()].flat().map((record) => record.revision))].filter((revision) => commitOf.has(revision));
  const bars: DurationBar[] = revisions.flatMap((revision) => [...histories].map(([cluster, history]) => {
    const live = firstLive(history, revision);
    return { label: commitLabel(commitOf.get(revision)!), cluster, ms: live === undefined ? undefined : Math.max(0, live - Date.parse(commitOf.get(revision)!.time)) };
  }));
  return html`<h2>Timeline</h2>${revisionLanes('object-lanes', 'Runs per cluster', lanes)}${durationBars('object-commit-to-live', 'Commit to live, per revision and cluster', bars)}`;
}
