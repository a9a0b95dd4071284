import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * RolloutPhase is where a source's rollout stands: waiting for an operator before a wave
 * (`waiting-approval`; a manual sync's pending revision), applying a wave's clusters and waiting
 * for their gate (`progressing`), soaking a passed wave (`soaking`), stopped by a failed gate
 * (`halted`), returned to the last good revision by an operator (`aborted`), or done (`complete`).
 */
export type RolloutPhase = 'waiting-approval' | 'progressing' | 'soaking' | 'halted' | 'aborted' | 'complete';
export const rolloutPhases: readonly RolloutPhase[] = ['waiting-approval', 'progressing', 'soaking', 'halted', 'aborted', 'complete'];

/** RolloutCellState is one cluster's place in a rollout, for the waves × clusters matrix. */
export type RolloutCellState = 'waiting' | 'applying' | 'ready' | 'failed' | 'returned';
const cellStates: readonly RolloutCellState[] = ['waiting', 'applying', 'ready', 'failed', 'returned'];

/** RolloutCell is one cluster in a rollout: its wave, its state, and when it was reached and Ready. */
export interface RolloutCell {
  wave: number;
  state: RolloutCellState;
  /** When its target moved to the rollout's revision (RFC 3339). */
  reachedAt?: string;
  /** When its gate passed (RFC 3339). */
  readyAt?: string;
}

/** RolloutHalt says which cluster and object stopped a rollout, and why, in a sentence. */
export interface RolloutHalt {
  cluster: string;
  objectKey?: string;
  reason: string;
  at: string;
}

/**
 * RolloutHold is a sync window or a freeze that holds a cluster of the batch a gate waits for:
 * the gate's clock stands still from `since` until it lets go (so a window never halts a rollout).
 */
export interface RolloutHold {
  cluster: string;
  /** The hold as every reader shows it: `deny window "weekend" until 16:00 Europe/Berlin`, `frozen by alice since …`. */
  reason: string;
  since: string;
}

/** RolloutAction is the last operator action on a rollout: promote, pause, resume, abort or sync. */
export interface RolloutAction {
  action: RolloutCommandVerb;
  by: string;
  at: string;
}

/**
 * RolloutRecord is a source's rollout: the revision moving through its waves, the last good one,
 * and each cluster's target revision (the one revision a job of that source may apply there).
 * One writer, the rollout driver (libs/fanout); the pipeline, the dashboard and the CLI read it
 * through parseRolloutRecord.
 */
export interface RolloutRecord {
  source: string;
  /** The revision being rolled out. */
  revision: string;
  /** The last good revision: what clusters the rollout has not reached stay at, and what abort returns to. */
  previous?: string;
  phase: RolloutPhase;
  /** An operator paused it: nothing advances until resumed (the targets stay as they are). */
  paused: boolean;
  /** The current wave (an index into waves). */
  wave: number;
  /** The waves, by name, with their clusters as resolved when the rollout started (or a cluster joined). */
  waves: { name: string; clusters: string[] }[];
  /** The clusters of the current wave being applied now (maxParallel at most), whose gate is awaited. */
  batch: string[];
  /** Each cluster's target revision for this source. */
  targets: Record<string, string>;
  cells: Record<string, RolloutCell>;
  /** When the current phase began (a batch's gate, a soak, an approval wait), RFC 3339. */
  phaseSince: string;
  /** When a soak ends, RFC 3339. */
  soakUntil?: string;
  halt?: RolloutHalt;
  /** A window or freeze holds the batch: the rollout waits, and its gate's clock stands still. */
  held?: RolloutHold;
  lastAction?: RolloutAction;
  startedAt: string;
  updatedAt: string;
}

/** maxRolloutRecordBytes bounds what a reader parses: a record is written by anyone who can write Redis. */
export const maxRolloutRecordBytes = 1 << 20;
const revisionPattern = /^[0-9a-f]{40}$/;
const maxText = 500;

/** RolloutRecordError is a stored rollout record that cannot be read; its message says which field. */
export class RolloutRecordError extends Error {
  readonly code = 'RolloutRecordInvalid';
}

/**
 * parseRolloutRecord reads a stored record as hostile input: absent is undefined (no rollout:
 * today's behaviour, every cluster at the head); a record that does not read throws
 * RolloutRecordError, so a job of its source waits rather than apply a revision nobody chose.
 */
export function parseRolloutRecord(source: string, raw: string | null | undefined): RolloutRecord | undefined {
  if (raw === null || raw === undefined) return undefined;
  const fail = (field: string) => new RolloutRecordError(`The rollout record of source ${source} in Redis is unreadable (${field}); its jobs wait until the rollout driver writes it again.`);
  if (raw.length > maxRolloutRecordBytes) throw fail(`larger than ${maxRolloutRecordBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw fail('not JSON');
  }
  if (!isObject(value)) throw fail('not an object');
  return { source, ...requiredFields(value, fail), ...optionalFields(value) };
}

type RecordObject = Record<string, unknown>;

/** requiredFields are what a job's revision is decided from: one that does not read fails the record. */
function requiredFields(value: RecordObject, fail: (field: string) => Error): Pick<RolloutRecord, 'revision' | 'previous' | 'phase' | 'paused' | 'wave' | 'waves' | 'targets'> {
  const revision = revisionOf(value.revision);
  if (!revision) throw fail('revision');
  const previous = value.previous === undefined ? undefined : revisionOf(value.previous);
  if (value.previous !== undefined && !previous) throw fail('previous');
  if (!rolloutPhases.includes(value.phase as RolloutPhase)) throw fail('phase');
  const targets = targetsOf(value.targets);
  if (!targets) throw fail('targets');
  const waves = wavesOf(value.waves);
  if (!waves) throw fail('waves');
  const wave = Number(value.wave);
  if (!Number.isInteger(wave) || wave < 0) throw fail('wave');
  return { revision, ...(previous ? { previous } : {}), phase: value.phase as RolloutPhase, paused: value.paused === true, wave, waves, targets };
}

/** optionalFields are what the page and the engine show or time: a field that does not read is dropped or defaulted. */
function optionalFields(value: RecordObject): Pick<RolloutRecord, 'batch' | 'cells' | 'phaseSince' | 'soakUntil' | 'halt' | 'held' | 'lastAction' | 'startedAt' | 'updatedAt'> {
  const action = isObject(value.lastAction) ? value.lastAction : undefined;
  return {
    batch: stringsOf(value.batch), cells: cellsOf(value.cells),
    phaseSince: timeOf(value.phaseSince), ...(value.soakUntil !== undefined ? { soakUntil: timeOf(value.soakUntil) } : {}),
    ...(isObject(value.halt) ? { halt: haltOf(value.halt) } : {}),
    ...(isObject(value.held) ? { held: { cluster: text(value.held.cluster), reason: text(value.held.reason), since: timeOf(value.held.since) } } : {}),
    ...(action && isVerb(action.action) ? { lastAction: { action: action.action, by: text(action.by) || 'unknown', at: timeOf(action.at) } } : {}),
    startedAt: timeOf(value.startedAt), updatedAt: timeOf(value.updatedAt),
  };
}

/**
 * rolloutTargetOf is the revision a job of the record's source applies on `cluster`: its target;
 * for a cluster the rollout has no target for (one that joined since), the last good revision
 * while the rollout runs, and the revision once it is complete. undefined: no revision may be
 * applied there yet (a first rollout that has not reached the cluster).
 */
export function rolloutTargetOf(record: RolloutRecord, cluster: string): string | undefined {
  const target = record.targets[cluster];
  if (target) return target;
  return record.phase === 'complete' ? record.revision : record.previous;
}

/** readRolloutRecord reads a source's rollout record (undefined: the source has none). */
export async function readRolloutRecord(redis: RedisClient, keys: RecordKeys, source: string): Promise<RolloutRecord | undefined> {
  return parseRolloutRecord(source, await redis.get(keys.rollout(source)));
}

/** listRolloutSources names the sources that have a rollout record. */
export async function listRolloutSources(redis: RedisClient, keys: RecordKeys): Promise<string[]> {
  return (await redis.smembers(keys.rollouts)).sort();
}

export type RolloutCommandVerb = 'promote' | 'pause' | 'resume' | 'abort' | 'sync';
export const rolloutCommandVerbs: readonly RolloutCommandVerb[] = ['promote', 'pause', 'resume', 'abort', 'sync'];

/**
 * RolloutCommand is an operator's action on a source's rollout, queued for the driver (the
 * record's one writer): the dashboard pushes it, the driver takes it at its next step.
 */
export interface RolloutCommand {
  verb: RolloutCommandVerb;
  by: string;
  at: string;
  /** The revision the operator saw; a command for a superseded revision is refused. */
  revision?: string;
}

/**
 * rolloutCommandRefusal says why a command cannot apply to a rollout as it stands, in a sentence,
 * or undefined when it can: the one check the dashboard answers with (409) before it queues the
 * command and the engine makes again when it takes it (the record may have moved in between).
 */
export function rolloutCommandRefusal(record: RolloutRecord, command: Pick<RolloutCommand, 'verb' | 'revision'>): string | undefined {
  if (command.revision && command.revision !== record.revision) return `the rollout is at ${record.revision.slice(0, 12)} now, not ${command.revision.slice(0, 12)}: a newer revision superseded it`;
  return commandRefusals[command.verb](record, command.verb);
}

/** commandRefusals: per verb, why it cannot apply to the rollout as it stands. */
const commandRefusals: Record<RolloutCommandVerb, (record: RolloutRecord, verb: RolloutCommandVerb) => string | undefined> = {
  promote: goAheadRefusal,
  sync: goAheadRefusal,
  pause: (record) => {
    if (record.paused) return 'the rollout is paused already';
    return ['progressing', 'soaking', 'waiting-approval'].includes(record.phase) ? undefined : `a ${record.phase} rollout cannot be paused`;
  },
  resume: (record) => (record.paused || record.phase === 'halted' ? undefined : `nothing to resume: the rollout is ${record.phase}`),
  abort: (record) => {
    if (record.phase === 'complete' || record.phase === 'aborted') return `a ${record.phase} rollout cannot be aborted`;
    return record.previous ? undefined : 'there is no last good revision to return to (this is the source\'s first rollout)';
  },
};

/** goAheadRefusal: promote skips a soak or an approval; sync gives an approval. */
function goAheadRefusal(record: RolloutRecord, verb: RolloutCommandVerb): string | undefined {
  if (record.paused) return 'the rollout is paused: resume it first';
  if (record.phase === 'waiting-approval' || (record.phase === 'soaking' && verb === 'promote')) return undefined;
  return `nothing to ${verb}: the rollout is ${record.phase}${record.phase === 'progressing' ? ' (its gate decides)' : ''}`;
}

/** maxQueuedRolloutCommands bounds a source's command list; older commands past it are dropped. */
export const maxQueuedRolloutCommands = 100;

/** pushRolloutCommand queues an operator's command for the driver. */
export async function pushRolloutCommand(redis: RedisClient, keys: RecordKeys, source: string, command: RolloutCommand): Promise<void> {
  await redis.multi().rpush(keys.rolloutCommands(source), JSON.stringify(command)).ltrim(keys.rolloutCommands(source), -maxQueuedRolloutCommands, -1).exec();
}

/** takeRolloutCommands removes and returns a source's queued commands, oldest first; unreadable ones are dropped. */
export async function takeRolloutCommands(redis: RedisClient, keys: RecordKeys, source: string): Promise<RolloutCommand[]> {
  const key = keys.rolloutCommands(source);
  const reply = await redis.multi().lrange(key, 0, -1).del(key).exec();
  const raw = (reply?.[0]?.[1] ?? []) as string[];
  return raw.flatMap((entry) => {
    const command = parseRolloutCommand(entry);
    return command ? [command] : [];
  });
}

/** parseRolloutCommand reads one queued command; undefined when it does not read. */
export function parseRolloutCommand(raw: string): RolloutCommand | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    if (!isObject(value) || !isVerb(value.verb)) return undefined;
    const revision = value.revision === undefined ? undefined : revisionOf(value.revision);
    return { verb: value.verb, by: text(value.by) || 'unknown', at: timeOf(value.at), ...(revision ? { revision } : {}) };
  } catch {
    return undefined;
  }
}

function isVerb(value: unknown): value is RolloutCommandVerb {
  return rolloutCommandVerbs.includes(value as RolloutCommandVerb);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function revisionOf(value: unknown): string | undefined {
  return typeof value === 'string' && revisionPattern.test(value) ? value : undefined;
}

function targetsOf(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const targets: Record<string, string> = {};
  for (const [cluster, revision] of Object.entries(value)) {
    const checked = revisionOf(revision);
    if (!checked) return undefined;
    targets[cluster] = checked;
  }
  return targets;
}

function wavesOf(value: unknown): RolloutRecord['waves'] | undefined {
  if (!Array.isArray(value)) return undefined;
  const waves: RolloutRecord['waves'] = [];
  for (const wave of value) {
    if (!isObject(wave) || typeof wave.name !== 'string') return undefined;
    waves.push({ name: text(wave.name), clusters: stringsOf(wave.clusters) });
  }
  return waves;
}

function cellsOf(value: unknown): Record<string, RolloutCell> {
  const cells: Record<string, RolloutCell> = {};
  if (!isObject(value)) return cells;
  for (const [cluster, cell] of Object.entries(value)) {
    if (!isObject(cell) || !cellStates.includes(cell.state as RolloutCellState)) continue;
    cells[cluster] = {
      wave: Number.isInteger(cell.wave) ? Number(cell.wave) : 0, state: cell.state as RolloutCellState,
      ...(cell.reachedAt !== undefined ? { reachedAt: timeOf(cell.reachedAt) } : {}),
      ...(cell.readyAt !== undefined ? { readyAt: timeOf(cell.readyAt) } : {}),
    };
  }
  return cells;
}

function haltOf(value: Record<string, unknown>): RolloutHalt {
  return { cluster: text(value.cluster), ...(typeof value.objectKey === 'string' ? { objectKey: text(value.objectKey) } : {}), reason: text(value.reason), at: timeOf(value.at) };
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string').map(text) : [];
}

function timeOf(value: unknown): string {
  const parsed = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return new Date(Number.isNaN(parsed) ? 0 : parsed).toISOString();
}

/** text keeps one bounded line: the record's texts are shown on the dashboard and in notifications. */
function text(value: unknown): string {
  // eslint-disable-next-line no-control-regex
  return typeof value === 'string' ? value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim().slice(0, maxText) : '';
}
