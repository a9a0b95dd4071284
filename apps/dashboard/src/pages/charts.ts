import { html, type SafeHtml } from './html';
import { duration } from './format';

// Charts are SVG drawn on the server. Each has a title, a one-sentence text alternative and the
// same numbers as a table, so a screen reader or a keyboard user loses nothing.

export interface Point {
  at: string;
  value: number | undefined;
}

export interface SparklineInput {
  id: string;
  title: string;
  points: readonly Point[];
  /** How a value reads, e.g. "12 jobs", "340 ms". */
  format(value: number): string;
}

const sparkWidth = 240;
const sparkHeight = 48;

function timeText(iso: string): string {
  return iso.slice(11, 19);
}

/** summarise says in one sentence what a series did: latest, lowest and highest value. */
export function summarise(points: readonly Point[], format: (value: number) => string): string {
  const values = points.map((point) => point.value).filter((value): value is number => value !== undefined);
  if (values.length === 0) return 'No sample recorded yet.';
  const first = points.find((point) => point.value !== undefined)!.at;
  return `Now ${format(values.at(-1)!)}; lowest ${format(Math.min(...values))}, highest ${format(Math.max(...values))}, over ${values.length} samples since ${timeText(first)} UTC.`;
}

/** sparkline draws a series as a line with its latest value, a sentence and a table of the samples. */
export function sparkline({ id, title, points, format }: SparklineInput): SafeHtml {
  const values = points.map((point) => point.value).filter((value): value is number => value !== undefined);
  const max = Math.max(1, ...values);
  const step = points.length > 1 ? sparkWidth / (points.length - 1) : 0;
  const coordinates = points.flatMap((point, index) => (point.value === undefined ? [] : [`${(index * step).toFixed(1)},${(sparkHeight - 2 - (point.value / max) * (sparkHeight - 4)).toFixed(1)}`]));
  const sentence = summarise(points, format);
  return html`<figure class="chart sparkline" id="${id}"><figcaption><strong>${title}</strong> <span class="chart-now">${values.length > 0 ? format(values.at(-1)!) : '—'}</span></figcaption>
<svg width="${sparkWidth}" height="${sparkHeight}" viewBox="0 0 ${sparkWidth} ${sparkHeight}" role="img" aria-label="${title}: ${sentence}"><title>${title}: ${sentence}</title>
<line class="chart-axis" x1="0" y1="${sparkHeight - 1}" x2="${sparkWidth}" y2="${sparkHeight - 1}"/>${coordinates.length > 0 ? html`<polyline class="chart-line" points="${coordinates.join(' ')}"/>` : ''}</svg>
<p class="chart-text">${sentence}</p>
<details><summary>Samples as a table</summary><table><caption class="visually-hidden">${title}</caption><tr><th scope="col">Time (UTC)</th><th scope="col" class="num">${title}</th></tr>
${[...points].reverse().map((point) => html`<tr><td>${timeText(point.at)}</td><td class="num">${point.value === undefined ? '—' : format(point.value)}</td></tr>`)}</table></details></figure>`;
}

export interface DurationBar {
  /** Row label, e.g. a short revision and commit subject. */
  label: string;
  cluster: string;
  /** Undefined: not live there (yet). */
  ms: number | undefined;
}

/** durationBars draws commit-to-live durations as horizontal bars, one per (row, cluster). */
export function durationBars(id: string, title: string, bars: readonly DurationBar[]): SafeHtml {
  if (bars.length === 0) return html``;
  const labelWidth = 260;
  const barArea = 320;
  const rowHeight = 22;
  const max = Math.max(1, ...bars.map((bar) => bar.ms ?? 0));
  const height = bars.length * rowHeight + 4;
  const sentence = `${bars.filter((bar) => bar.ms !== undefined).length} of ${bars.length} reached their cluster; the longest took ${duration(max)}.`;
  return html`<figure class="chart bars" id="${id}"><figcaption><strong>${title}</strong></figcaption><div class="scroll">
<svg width="${labelWidth + barArea + 90}" height="${height}" role="img" aria-label="${title}: ${sentence}"><title>${title}: ${sentence}</title>
${bars.map((bar, index) => {
    const y = index * rowHeight + 2;
    const width = bar.ms === undefined ? 0 : Math.max(2, (bar.ms / max) * barArea);
    return html`<text class="chart-label" x="0" y="${y + 15}">${truncate(`${bar.label} → ${bar.cluster}`, 42)}</text>
${bar.ms === undefined ? html`<text class="chart-label muted-fill" x="${labelWidth}" y="${y + 15}">not live yet</text>` : html`<rect class="chart-bar" x="${labelWidth}" y="${y + 3}" width="${width.toFixed(1)}" height="${rowHeight - 8}" rx="2"/><text class="chart-label" x="${labelWidth + width + 6}" y="${y + 15}">${duration(bar.ms)}</text>`}`;
  })}</svg></div><p class="chart-text">${sentence}</p>
<details><summary>Durations as a table</summary><table><caption class="visually-hidden">${title}</caption><tr><th scope="col">Commit</th><th scope="col">Cluster</th><th scope="col" class="num">Commit to live</th></tr>
${bars.map((bar) => html`<tr><td>${bar.label}</td><td>${bar.cluster}</td><td class="num">${bar.ms === undefined ? 'not live yet' : duration(bar.ms)}</td></tr>`)}</table></details></figure>`;
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

export interface LaneRun {
  at: string;
  result: string;
  revision: string;
}

/** revisionLanes draws each cluster's runs over time as marks on a lane, a new revision as a labelled tick. */
export function revisionLanes(id: string, title: string, lanes: ReadonlyMap<string, readonly LaneRun[]>): SafeHtml {
  const runs = [...lanes.values()].flat();
  if (runs.length === 0) return html``;
  const times = runs.map((run) => Date.parse(run.at));
  const start = Math.min(...times);
  const end = Math.max(...times, start + 5_000);
  const labelWidth = 110;
  const width = 560;
  const laneHeight = 34;
  const x = (at: string) => labelWidth + ((Date.parse(at) - start) / (end - start)) * (width - 20);
  const entries = [...lanes];
  const height = entries.length * laneHeight + 22;
  const sentence = `${runs.length} runs on ${entries.length} cluster${entries.length === 1 ? '' : 's'} between ${timeText(new Date(start).toISOString())} and ${timeText(new Date(end).toISOString())} UTC.`;
  return html`<figure class="chart lanes" id="${id}"><figcaption><strong>${title}</strong></figcaption><div class="scroll">
<svg width="${labelWidth + width}" height="${height}" role="img" aria-label="${title}: ${sentence}"><title>${title}: ${sentence}</title>
${entries.map(([cluster, laneRuns], index) => {
    const y = index * laneHeight + 16;
    let previous: string | undefined;
    let labelEnd = -Infinity;
    const marks = [...laneRuns].sort((a, b) => a.at.localeCompare(b.at)).map((run) => {
      const changed = run.revision !== previous;
      previous = run.revision;
      // A revision's label is drawn when it does not run into the previous one (the table has them all).
      const labelled = changed && x(run.at) >= labelEnd;
      if (labelled) labelEnd = x(run.at) + 48;
      return html`${changed ? html`<line class="chart-tick" x1="${x(run.at).toFixed(1)}" y1="${y - 12}" x2="${x(run.at).toFixed(1)}" y2="${y + 12}"/>` : ''}${labelled ? html`<text class="chart-label small" x="${(x(run.at) + 3).toFixed(1)}" y="${y - 4}">${run.revision.slice(0, 7)}</text>` : ''}<circle class="run run-${run.result}" cx="${x(run.at).toFixed(1)}" cy="${y + 6}" r="4"/>`;
    });
    return html`<text class="chart-label" x="0" y="${y + 10}">${truncate(cluster, 14)}</text><line class="chart-axis" x1="${labelWidth}" y1="${y + 6}" x2="${labelWidth + width - 10}" y2="${y + 6}"/>${marks}`;
  })}</svg></div><p class="chart-text">${sentence} Each dot is a run (green succeeded, blue progressing, red failed or stalled); a tick marks a new revision.</p>
<details><summary>Runs as a table</summary><table><caption class="visually-hidden">${title}</caption><tr><th scope="col">Cluster</th><th scope="col">Started (UTC)</th><th scope="col">Revision</th><th scope="col">Result</th></tr>
${entries.flatMap(([cluster, laneRuns]) => laneRuns.map((run) => html`<tr><td>${cluster}</td><td>${run.at.slice(0, 19).replace('T', ' ')}</td><td><code>${run.revision.slice(0, 10)}</code></td><td>${run.result}</td></tr>`))}</table></details></figure>`;
}
