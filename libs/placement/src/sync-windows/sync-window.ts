import { Cron } from 'croner';
import { matches, requirementsOf, SelectorError, type LabelSelector, type Requirement } from '../label-selector';

/**
 * SyncWindowInput is one window as the operator writes it in tidemark.yaml: a start (five-field
 * cron, read in `timeZone`), how long it lasts, and what it covers. A `deny` window holds every
 * write to the clusters it covers while it is open; once any `allow` window covers a cluster and
 * source, writes go there only while one of them is open.
 */
export interface SyncWindowInput {
  /** A name for messages ("deny window weekend until …"). @defaultValue none */
  name?: string;
  kind: 'allow' | 'deny';
  /** When the window opens: minute hour day-of-month month day-of-week. */
  schedule: string;
  /** How long it stays open: `90m`, `7h`, `2d12h`; at least a minute, at most 31 days. */
  duration: string;
  /** The IANA zone the schedule is read in. @defaultValue UTC */
  timeZone?: string;
  /** Clusters covered by name; with clusterSelector, a cluster either selects is covered. */
  clusters?: string[];
  clusterSelector?: LabelSelector;
  /** Sources covered by name. @defaultValue every source */
  sources?: string[];
  /** Whether an operator's reconcile (dashboard, API, CLI) may pass while it holds. @defaultValue false */
  manualSync?: boolean;
}

/** SyncWindow is a window checked and compiled once, at configuration load. */
export interface SyncWindow {
  readonly name: string | undefined;
  readonly kind: 'allow' | 'deny';
  readonly schedule: string;
  readonly durationMs: number;
  readonly timeZone: string;
  readonly manualSync: boolean;
  readonly clusters: readonly string[] | undefined;
  readonly requirements: readonly Requirement[] | undefined;
  readonly sources: readonly string[] | undefined;
  /** nextStart is the first start strictly after `after`, null when there is none. A function, so a frozen config leaves the compiled schedule alone. */
  readonly nextStart: (after: Date) => Date | null;
}

/** SyncWindowError is a window that cannot be read; its message names the field and says why. */
export class SyncWindowError extends Error {
  readonly code = 'SyncWindowInvalid';
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'SyncWindowError';
  }
}

export const maxWindowDurationMs = 31 * 24 * 3600_000;
const minWindowDurationMs = 60_000;
const durationUnits: Record<string, number> = { d: 24 * 3600_000, h: 3600_000, m: 60_000 };

/** parseWindowDuration reads `2d`, `7h30m`, `90m`; anything else, or outside a minute to 31 days, is refused. */
export function parseWindowDuration(text: string, field: string): number {
  const match = /^(?:(\d{1,6})d)?(?:(\d{1,6})h)?(?:(\d{1,6})m)?$/.exec(text);
  if (!match || text.length === 0) throw new SyncWindowError(field, `"${bounded(text)}" is not a duration; write it as 90m, 7h, 2d or 1d12h`);
  const [, days = '0', hours = '0', minutes = '0'] = match;
  const ms = Number(days) * durationUnits.d! + Number(hours) * durationUnits.h! + Number(minutes) * durationUnits.m!;
  if (ms < minWindowDurationMs || ms > maxWindowDurationMs) throw new SyncWindowError(field, `${text} is outside 1m to 31d: a window lasts at least a minute and at most 31 days`);
  return ms;
}

/** canonicalTimeZone is the IANA name as the runtime spells it (europe/berlin → Europe/Berlin); an unknown zone is refused. */
export function canonicalTimeZone(zone: string, field: string): string {
  if (zone.length === 0 || zone.length > 64) throw new SyncWindowError(field, `"${bounded(zone)}" is not an IANA time zone such as Europe/Berlin or UTC`);
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw new SyncWindowError(field, `"${bounded(zone)}" is not an IANA time zone such as Europe/Berlin or UTC`);
  }
}

/**
 * compileSyncWindow checks one window and compiles its schedule; `where` names it in errors
 * (`tidemark.yaml: syncWindows[2]`). A schedule that never starts again is refused: as an allow
 * window it would close its clusters for good.
 */
export function compileSyncWindow(input: SyncWindowInput, where: string, now: Date = new Date()): SyncWindow {
  if (input.name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,62}$/.test(input.name)) throw new SyncWindowError(`${where}.name`, `"${bounded(input.name)}" is not a window name: up to 63 letters, digits, spaces, dots, dashes and underscores`);
  if (input.kind !== 'allow' && input.kind !== 'deny') throw new SyncWindowError(`${where}.kind`, `"${bounded(String(input.kind))}" is not allow or deny`);
  const timeZone = canonicalTimeZone(input.timeZone ?? 'UTC', `${where}.timeZone`);
  const durationMs = parseWindowDuration(input.duration, `${where}.duration`);
  const cron = compileSchedule(input.schedule, timeZone, `${where}.schedule`);
  if (!cron.nextRun(now)) throw new SyncWindowError(`${where}.schedule`, `"${input.schedule}" never starts (no such date): the window would never open`);
  return {
    name: input.name, kind: input.kind, schedule: input.schedule, durationMs, timeZone,
    manualSync: input.manualSync ?? false,
    clusters: input.clusters, requirements: selectorOf(input.clusterSelector, `${where}.clusterSelector`), sources: input.sources,
    nextStart: (after) => cron.nextRun(after),
  };
}

function compileSchedule(schedule: string, timeZone: string, field: string): Cron {
  // Five fields only: seconds, years and nicknames (@daily) are not part of what a window promises.
  if (schedule.length > 200 || !/^\S+( \S+){4}$/.test(schedule.trim())) {
    throw new SyncWindowError(field, `"${bounded(schedule)}" is not a five-field cron schedule (minute hour day-of-month month day-of-week), such as "0 9 * * 1-5"`);
  }
  try {
    return new Cron(schedule.trim(), { timezone: timeZone, mode: '5-part' });
  } catch (error) {
    throw new SyncWindowError(field, `"${bounded(schedule)}" is not a valid cron schedule (${error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)})`);
  }
}

function selectorOf(selector: LabelSelector | undefined, field: string): Requirement[] | undefined {
  if (!selector) return undefined;
  try {
    return requirementsOf(selector);
  } catch (error) {
    if (error instanceof SelectorError) throw new SyncWindowError(field, error.message);
    throw error;
  }
}

/** covers tells whether a window applies to a cluster and source; an undefined source is "every source", which only windows without a sources list cover. */
export function covers(window: SyncWindow, cluster: { name: string; labels: Readonly<Record<string, string>> }, source: string | undefined): boolean {
  if (window.sources && (source === undefined || !window.sources.includes(source))) return false;
  if (!window.clusters && !window.requirements) return true;
  return (window.clusters?.includes(cluster.name) ?? false) || (window.requirements !== undefined && matches(window.requirements, cluster.labels));
}

/** describeWindow is how messages name a window: `deny window "weekend"`, or its schedule when it has no name. */
export function describeWindow(window: SyncWindow): string {
  return `${window.kind} window "${window.name ?? window.schedule}"`;
}

function bounded(text: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return plain.length > 80 ? `${plain.slice(0, 80)}…` : plain;
}
