import type { RolloutCell, RolloutRecord } from '@tidemark/contracts';
import { duration } from './format';
import { html, type SafeHtml } from './html';

/** TimelineRow is one cluster of a rollout on the timeline: its wave, its target, its state, and when it was reached and Ready. */
export interface TimelineRow {
  wave: string;
  cluster: string;
  revision: string | undefined;
  state: RolloutCell['state'];
  /** ms since the rollout started: reached, and Ready (or now, for a cluster still applying or failed). */
  from: number | undefined;
  to: number | undefined;
  /** How long its gate took (reached to Ready), undefined while it has not passed. */
  tookMs: number | undefined;
}

/** timelineRows lays a rollout out as waves × clusters against the time since it started, read at `now`. */
export function timelineRows(record: RolloutRecord, now: number): TimelineRow[] {
  const start = Date.parse(record.startedAt);
  return record.waves.flatMap((wave) => wave.clusters.map((cluster) => {
    const cell = record.cells[cluster];
    const { reached, ready, end } = spanOf(record, cluster, now);
    return {
      wave: wave.name, cluster, revision: record.targets[cluster], state: cell?.state ?? 'waiting',
      from: reached === undefined ? undefined : Math.max(0, reached - start), to: reached === undefined || end === undefined ? undefined : Math.max(0, end - start),
      tookMs: reached !== undefined && ready !== undefined ? Math.max(0, ready - reached) : undefined,
    };
  }));
}

/** spanOf is when a cluster was reached and Ready, and where its bar ends: Ready, now while it applies, the halt for the one that failed. */
function spanOf(record: RolloutRecord, cluster: string, now: number): { reached?: number; ready?: number; end?: number } {
  const cell = record.cells[cluster];
  const reached = cell?.reachedAt ? Date.parse(cell.reachedAt) : undefined;
  const ready = cell?.readyAt ? Date.parse(cell.readyAt) : undefined;
  const halted = cell?.state === 'failed' && record.halt?.cluster === cluster ? Date.parse(record.halt.at) : undefined;
  const end = ready ?? (cell?.state === 'applying' ? now : halted);
  return { ...(reached !== undefined ? { reached } : {}), ...(ready !== undefined ? { ready } : {}), ...(end !== undefined ? { end } : {}) };
}

const labelWidth = 190;
const barArea = 420;
const rowHeight = 22;

function rowText(row: TimelineRow): string {
  const revision = row.revision ? row.revision.slice(0, 7) : 'none';
  return `${revision} ${row.state}${row.tookMs !== undefined ? ` in ${duration(row.tookMs)}` : ''}`;
}

/**
 * rolloutTimeline draws a rollout as waves × clusters on a time axis from its start: each cluster a
 * bar from when the rollout reached it to when its gate passed (or now, while it applies), coloured
 * by its state, labelled with its revision and how long it took; a waiting cluster is a label at its
 * kept revision. As the other charts: a title, a sentence, and the same numbers as a table.
 */
export function rolloutTimeline(record: RolloutRecord, now = Date.now()): SafeHtml {
  const rows = timelineRows(record, now);
  // Nothing reached yet (a pending revision, a first wave waiting for approval): the matrix says it all.
  if (rows.every((row) => row.from === undefined)) return html``;
  const span = Math.max(1_000, ...rows.map((row) => row.to ?? 0), record.held ? now - Date.parse(record.startedAt) : 0);
  const x = (ms: number) => labelWidth + (ms / span) * barArea;
  const height = rows.length * rowHeight + 24;
  const passed = rows.filter((row) => row.state === 'ready').length;
  const title = `Timeline of ${record.source} at ${record.revision.slice(0, 7)}`;
  const sentence = `${passed} of ${rows.length} clusters Ready at ${record.revision.slice(0, 7)} over ${duration(span)} since the rollout started${record.held ? `; waiting: ${record.held.reason}` : ''}.`;
  let previousWave: string | undefined;
  return html`<figure class="chart rollout-timeline" data-timeline="${record.source}"><figcaption><strong>${title}</strong></figcaption><div class="scroll">
<svg width="${labelWidth + barArea + 150}" height="${height}" role="img" aria-label="${title}: ${sentence}"><title>${title}: ${sentence}</title>
<line class="chart-axis" x1="${labelWidth}" y1="${height - 14}" x2="${labelWidth + barArea}" y2="${height - 14}"/><text class="chart-label small" x="${labelWidth}" y="${height - 2}">0 s</text><text class="chart-label small" x="${labelWidth + barArea - 30}" y="${height - 2}">${duration(span)}</text>
${rows.map((row, index) => {
    const y = index * rowHeight + 2;
    const waveLabel = row.wave !== previousWave ? row.wave : '';
    previousWave = row.wave;
    const bar = row.from !== undefined && row.to !== undefined
      ? html`<rect class="rollout-bar state-${row.state}" data-cluster="${row.cluster}" x="${x(row.from).toFixed(1)}" y="${y + 3}" width="${Math.max(2, x(row.to) - x(row.from)).toFixed(1)}" height="${rowHeight - 8}" rx="2"/><text class="chart-label" x="${(x(row.to) + 6).toFixed(1)}" y="${y + 15}">${rowText(row)}</text>`
      : html`<text class="chart-label muted-fill" x="${labelWidth}" y="${y + 15}">${rowText(row)}</text>`;
    return html`<text class="chart-label small" x="0" y="${y + 15}">${waveLabel}</text><text class="chart-label" x="70" y="${y + 15}">${row.cluster.length > 16 ? `${row.cluster.slice(0, 15)}…` : row.cluster}</text>${bar}`;
  })}</svg></div><p class="chart-text">${sentence} A bar runs from when the rollout reached the cluster to when its gate passed (green), or to now while it applies (blue); red is where it halted.</p>
<details><summary>The timeline as a table</summary><table class="rollout-timeline-table"><caption class="visually-hidden">${title}</caption><tr><th scope="col">Wave</th><th scope="col">Cluster</th><th scope="col">Revision</th><th scope="col">State</th><th scope="col" class="num">Reached after</th><th scope="col" class="num">Took</th></tr>
${rows.map((row) => html`<tr data-cluster="${row.cluster}"><td>${row.wave}</td><td>${row.cluster}</td><td><code>${row.revision?.slice(0, 10) ?? 'none'}</code></td><td>${row.state}</td><td class="num">${row.from === undefined ? '—' : duration(row.from)}</td><td class="num">${row.tookMs === undefined ? '—' : duration(row.tookMs)}</td></tr>`)}</table></details></figure>`;
}
