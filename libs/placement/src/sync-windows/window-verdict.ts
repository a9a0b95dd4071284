import { covers, describeWindow, type SyncWindow } from './sync-window';

/** SyncWindowHold is why writes to a cluster (for a source) wait now, and until when. */
export interface SyncWindowHold {
  /** 'deny' while a deny window is open; 'allow' while allow windows cover it and none is open. */
  readonly kind: 'deny' | 'allow';
  /** The windows that hold now: the open deny windows, or else every covering allow window. */
  readonly windows: readonly SyncWindow[];
  /** When writes may go again, as far as the windows tell; undefined when they do not say (always open, or beyond the search). */
  readonly until: Date | undefined;
  /** Whether an operator's reconcile may pass: every window that holds says manualSync. */
  readonly manualSync: boolean;
  /** The phrase every reader shows: `deny window "weekend" until 16:00 Europe/Berlin`. */
  readonly description: string;
}

/** ClusterOfWindow is a cluster as windows select it. */
export interface ClusterOfWindow {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

// Bounds on the search, so that no schedule makes a verdict slow; past them a recheck looks again.
const maxMergedStarts = 100;
const maxSteps = 16;

/**
 * syncWindowHold is the verdict for one cluster and source at `now`, a pure function of its
 * arguments: undefined when writes may go, else the hold. A deny window holds while open; allow
 * windows, once any covers the cluster and source, hold while none of them is open. An undefined
 * source asks about every source: only windows without a `sources` list count.
 */
export function syncWindowHold(now: Date, windows: readonly SyncWindow[], cluster: ClusterOfWindow, source: string | undefined): SyncWindowHold | undefined {
  const covering = windows.filter((window) => covers(window, cluster, source));
  if (covering.length === 0) return undefined;
  const at = now.getTime();
  const denying = covering.filter((window) => window.kind === 'deny' && openUntil(window, at) !== undefined);
  const allows = covering.filter((window) => window.kind === 'allow');
  const outsideAllows = allows.length > 0 && !allows.some((window) => openUntil(window, at) !== undefined);
  if (denying.length === 0 && !outsideAllows) return undefined;
  const holding = [...denying, ...(outsideAllows ? allows : [])];
  const opening = opensAt(at, covering);
  const until = opening.at === undefined ? undefined : new Date(opening.at);
  const kind = denying.length > 0 ? 'deny' : 'allow';
  const what = kind === 'deny' ? denying.map(describeWindow).join(', ') : 'outside its allow windows';
  const when = until ? ` until ${localTime(until, (opening.by ?? holding[0]!).timeZone, now)}` : ' until further notice';
  return { kind, windows: holding, until, manualSync: holding.every((window) => window.manualSync), description: `${what}${when}` };
}

/**
 * openUntil is the end of the window's open stretch around `at` (overlapping or touching
 * occurrences merged), undefined when it is closed; Infinity when the stretch runs past the search.
 */
export function openUntil(window: SyncWindow, at: number): number | undefined {
  const start = window.nextStart(new Date(at - window.durationMs));
  if (!start || start.getTime() > at) return undefined;
  let end = start.getTime() + window.durationMs;
  let next = window.nextStart(start);
  for (let step = 0; next && next.getTime() <= end; step += 1) {
    if (step >= maxMergedStarts) return Infinity;
    end = Math.max(end, next.getTime() + window.durationMs);
    next = window.nextStart(next);
  }
  return end;
}

/** opensAt walks forward from `at` past open deny windows and closed allow stretches to the first moment writes may go. */
function opensAt(at: number, covering: readonly SyncWindow[]): { at: number | undefined; by: SyncWindow | undefined } {
  let moment = at;
  let by: SyncWindow | undefined;
  const allows = covering.filter((window) => window.kind === 'allow');
  for (let step = 0; step < maxSteps; step += 1) {
    const denyEnd = latestEnd(covering.filter((window) => window.kind === 'deny'), moment);
    if (denyEnd) {
      if (!Number.isFinite(denyEnd.end)) return { at: undefined, by: denyEnd.window };
      ({ end: moment, window: by } = denyEnd);
      continue;
    }
    if (allows.length === 0 || allows.some((window) => openUntil(window, moment) !== undefined)) return { at: moment, by };
    const next = earliestStart(allows, moment);
    if (!next) return { at: undefined, by };
    ({ start: moment, window: by } = next);
  }
  return { at: moment, by };
}

function latestEnd(windows: readonly SyncWindow[], at: number): { end: number; window: SyncWindow } | undefined {
  let latest: { end: number; window: SyncWindow } | undefined;
  for (const window of windows) {
    const end = openUntil(window, at);
    if (end !== undefined && (!latest || end > latest.end)) latest = { end, window };
  }
  return latest;
}

function earliestStart(windows: readonly SyncWindow[], at: number): { start: number; window: SyncWindow } | undefined {
  let earliest: { start: number; window: SyncWindow } | undefined;
  for (const window of windows) {
    const start = window.nextStart(new Date(at))?.getTime();
    if (start !== undefined && (!earliest || start < earliest.start)) earliest = { start, window };
  }
  return earliest;
}

/** localTime is `16:00 Europe/Berlin` on the day of `now` in that zone, else `2026-03-31 16:00 Europe/Berlin`. */
export function localTime(date: Date, timeZone: string, now: Date): string {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const parts = (value: Date) => Object.fromEntries(format.formatToParts(value).map((part) => [part.type, part.value]));
  const then = parts(date);
  const today = parts(now);
  const day = `${then.year}-${then.month}-${then.day}`;
  const clock = `${then.hour}:${then.minute} ${timeZone}`;
  return day === `${today.year}-${today.month}-${today.day}` ? clock : `${day} ${clock}`;
}
