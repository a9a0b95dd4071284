import type { RolloutCommand, RolloutHalt, RolloutRecord } from '@tidemark/contracts';
import { rolloutCommandRefusal, rolloutTargetOf } from '@tidemark/contracts';
import type { ClusterTarget } from '@tidemark/placement';
import { assignWaves, batchSize, type RolloutPolicy } from './rollout-policy';

/** GateFinding is one object that holds a gate: which cluster and object, and why in a sentence. */
export interface GateFinding {
  cluster: string;
  objectKey: string;
  reason: string;
}

/**
 * GateReport is what the driver read of a batch's objects: `clusters` is the batch it covers (a
 * report for another batch is ignored); ready when every object the source places there is Ready
 * at the rollout's revision; `failed` when one failed for good there (the gate halts at once);
 * `pending` is the first object still waited for (named when the gate times out); `held` is a
 * cluster of the batch a sync window or freeze holds now (its reason the hold's description): the
 * gate waits without its clock running.
 */
export interface GateReport {
  clusters: readonly string[];
  ready: boolean;
  failed?: GateFinding;
  pending?: GateFinding;
  held?: Omit<GateFinding, 'objectKey'>;
}

/** RolloutEvent is what moves a rollout: a new revision, a tick (with the gate as read now), or an operator's command. */
export type RolloutEvent =
  | { type: 'revision'; revision: string; previous?: string; clusters: readonly ClusterTarget[] }
  | { type: 'tick'; clusters: readonly ClusterTarget[]; gate?: GateReport }
  | { type: 'command'; command: RolloutCommand };

/** RolloutNotice is what the notifications, the log and commit statuses are told. */
export type RolloutNoticeKind = 'started' | 'wave-passed' | 'waiting-approval' | 'held' | 'halted' | 'aborted' | 'complete';

/** RolloutEffect is what the driver does for a step: reconcile clusters at a revision, or tell people. */
export type RolloutEffect =
  | { type: 'reach'; clusters: string[]; revision: string }
  | { type: 'notice'; kind: RolloutNoticeKind; message: string; wave?: string; halt?: RolloutHalt; /** wave-passed: from its first cluster reached to its last gate passed. */ durationMs?: number };

/** StepContext is what every transition of one step reads and adds to. */
interface StepContext {
  now: Date;
  policy: RolloutPolicy;
  effects: RolloutEffect[];
}

/** RolloutStep is a step's outcome: the new state (undefined: none yet), what to do, and a refused command's reason. */
export interface RolloutStep {
  state: RolloutRecord | undefined;
  effects: RolloutEffect[];
  refused?: string;
}

/**
 * stepRollout is the rollout engine: a pure function of the record, one event, the time and the
 * policy. A new revision starts a rollout from the first wave (superseding one in progress); each
 * wave reaches its clusters maxParallel at a time, each batch waits for its gate, a passed wave
 * soaks, a wave with an approval waits for an operator; a failed or timed-out gate halts, and
 * later waves keep their targets. Abort returns every reached cluster to the last good revision.
 */
export function stepRollout(state: RolloutRecord | undefined, event: RolloutEvent, now: Date, policy: RolloutPolicy): RolloutStep {
  const effects: RolloutEffect[] = [];
  if (event.type === 'revision') return { state: start(state, event, now, policy, effects), effects };
  if (!state) return { state, effects, ...(event.type === 'command' ? { refused: `source ${policy.source} has no rollout yet` } : {}) };
  const next = structuredClone(state);
  if (event.type === 'command') {
    const refused = command(next, event.command, now, policy, effects);
    if (refused) return { state, effects: [], refused };
  } else {
    tick(next, event, now, policy, effects);
  }
  if (JSON.stringify(next) === JSON.stringify(state)) return { state, effects };
  next.updatedAt = now.toISOString();
  return { state: next, effects };
}

function start(state: RolloutRecord | undefined, event: Extract<RolloutEvent, { type: 'revision' }>, now: Date, policy: RolloutPolicy, effects: RolloutEffect[]): RolloutRecord | undefined {
  if (state?.revision === event.revision) return state;
  // The last good revision: the one a finished rollout reached, else the one the last rollout started from.
  const previous = state ? (state.phase === 'complete' ? state.revision : state.previous) : event.previous;
  const at = now.toISOString();
  const assigned = assignWaves(policy, event.clusters);
  const targets: Record<string, string> = {};
  for (const cluster of event.clusters) {
    // Nothing moves at the start: each cluster keeps the revision it had.
    const kept = state ? rolloutTargetOf(state, cluster.name) : previous;
    if (kept) targets[cluster.name] = kept;
  }
  const record: RolloutRecord = {
    source: policy.source, revision: event.revision, ...(previous ? { previous } : {}), phase: 'progressing', paused: false, wave: 0,
    waves: policy.waves.map((wave, index) => ({ name: wave.name, clusters: assigned[index] ?? [] })),
    batch: [], targets, cells: {}, phaseSince: at, startedAt: at, updatedAt: at,
  };
  assigned.forEach((names, wave) => names.forEach((name) => (record.cells[name] = { wave, state: 'waiting' })));
  effects.push({ type: 'notice', kind: 'started', message: `rollout of ${policy.source} at ${short(event.revision)} started${state && state.phase !== 'complete' && state.phase !== 'aborted' ? `, superseding ${short(state.revision)}` : ''}` });
  enterWave(record, 0, { now, policy, effects });
  return record;
}

function tick(state: RolloutRecord, event: Extract<RolloutEvent, { type: 'tick' }>, now: Date, policy: RolloutPolicy, effects: RolloutEffect[]): void {
  joinAndLeave(state, event.clusters, now, policy, effects);
  // A hold counts only against a batch's gate; anything else that moved the phase ended it.
  if (state.held && (state.paused || state.phase !== 'progressing')) delete state.held;
  if (state.paused) return;
  if (state.phase === 'soaking' && state.soakUntil && now.getTime() >= Date.parse(state.soakUntil)) {
    enterWave(state, state.wave + 1, { now, policy, effects });
    return;
  }
  if (state.phase !== 'progressing') return;
  if (state.batch.length === 0) return nextBatch(state, now, policy, effects);
  judgeGate(state, event.gate, now, policy, effects);
}

/**
 * judgeGate moves on when the batch's gate passed, and halts when it failed or ran out of time.
 * While a window or freeze holds a cluster of the batch the gate waits and its clock stands still:
 * the time held is added to phaseSince when the hold lets go, so a window never halts a rollout.
 */
function judgeGate(state: RolloutRecord, gate: GateReport | undefined, now: Date, policy: RolloutPolicy, effects: RolloutEffect[]): void {
  const current = gate && sameClusters(gate.clusters, state.batch) ? gate : undefined;
  if (current?.failed) return halt(state, current.failed, now, effects);
  if (current?.ready) {
    delete state.held;
    for (const cluster of state.batch) state.cells[cluster] = { ...cellOf(state, cluster), state: 'ready', readyAt: now.toISOString() };
    state.batch = [];
    return nextBatch(state, now, policy, effects);
  }
  if (heldGate(state, current, now, effects)) return;
  const wave = policy.waves[state.wave];
  if (wave && now.getTime() - Date.parse(state.phaseSince) >= wave.gateTimeoutMs) {
    const pending = gate?.pending ?? { cluster: state.batch[0]!, objectKey: '', reason: 'its objects were not read in time' };
    halt(state, { ...pending, reason: `not Ready at ${short(state.revision)} within ${Math.round(wave.gateTimeoutMs / 1000)} s: ${pending.reason}` }, now, effects);
  }
}

/**
 * heldGate says whether a hold stops the gate's clock now: the report says a window or freeze holds
 * the batch, or there is no fresh report to say a noted hold let go. A hold that let go is released.
 */
function heldGate(state: RolloutRecord, current: GateReport | undefined, now: Date, effects: RolloutEffect[]): boolean {
  if (current?.held) {
    holdGate(state, current.held, now, effects);
    return true;
  }
  if (!state.held) return false;
  if (!current) return true;
  releaseGate(state, now);
  return false;
}

/** holdGate notes the hold (once, with a notice) and leaves the gate's clock where it stood. */
function holdGate(state: RolloutRecord, held: NonNullable<GateReport['held']>, now: Date, effects: RolloutEffect[]): void {
  if (state.held) {
    // The same hold (or the next cluster's): its clock stopped when the first began.
    state.held = { ...state.held, cluster: held.cluster, reason: held.reason };
    return;
  }
  state.held = { cluster: held.cluster, reason: held.reason, since: now.toISOString() };
  const wave = state.waves[state.wave]?.name ?? String(state.wave);
  effects.push({ type: 'notice', kind: 'held', wave, message: `rollout of ${state.source} at ${short(state.revision)} waits in wave ${wave}: ${held.cluster}: ${held.reason}; its gate's clock stands still` });
}

/** releaseGate ends a hold: the gate's clock goes on from where it stood when the hold began. */
function releaseGate(state: RolloutRecord, now: Date): void {
  const heldMs = Math.max(0, now.getTime() - Date.parse(state.held!.since));
  state.phaseSince = new Date(Date.parse(state.phaseSince) + heldMs).toISOString();
  delete state.held;
}

/** command applies an operator's command; returns why it was refused (rolloutCommandRefusal), or undefined. */
function command(state: RolloutRecord, command: RolloutCommand, now: Date, policy: RolloutPolicy, effects: RolloutEffect[]): string | undefined {
  const refused = rolloutCommandRefusal(state, command);
  if (refused) return refused;
  // Every command restarts or ends the phase's clock; a hold still there is noted again at the next tick.
  if (state.held && command.verb !== 'pause') releaseGate(state, now);
  apply(state, command, now, policy, effects);
  state.lastAction = { action: command.verb, by: command.by, at: now.toISOString() };
  return undefined;
}

function apply(state: RolloutRecord, command: RolloutCommand, now: Date, policy: RolloutPolicy, effects: RolloutEffect[]): void {
  const at = now.toISOString();
  switch (command.verb) {
    case 'promote':
    case 'sync':
      // Past an approval into the wave, or past a soak into the next one.
      if (state.phase === 'waiting-approval') return enterWave(state, state.wave, { now, policy, effects }, true);
      return enterWave(state, state.wave + 1, { now, policy, effects });
    case 'pause':
      state.paused = true;
      return;
    case 'resume':
      if (state.paused) {
        state.paused = false;
        // The gate's clock starts again: a pause does not count against its timeout.
        if (state.phase === 'progressing') state.phaseSince = at;
        return;
      }
      // After a halt, resume tries the halted batch's gate again (say, after a fix on the cluster).
      state.phase = 'progressing';
      state.phaseSince = at;
      delete state.halt;
      for (const cluster of state.batch) state.cells[cluster] = { ...cellOf(state, cluster), state: 'applying' };
      if (state.batch.length > 0) effects.push({ type: 'reach', clusters: [...state.batch], revision: state.revision });
      return;
    case 'abort':
      return abort(state, state.previous!, now, effects);
  }
}

function abort(state: RolloutRecord, previous: string, now: Date, effects: RolloutEffect[]): void {
  const reached = Object.entries(state.targets).filter(([, target]) => target !== previous).map(([cluster]) => cluster).sort();
  for (const cluster of reached) {
    state.targets[cluster] = previous;
    state.cells[cluster] = { ...cellOf(state, cluster), state: 'returned' };
  }
  state.phase = 'aborted';
  state.paused = false;
  state.batch = [];
  state.phaseSince = now.toISOString();
  delete state.soakUntil;
  if (reached.length > 0) effects.push({ type: 'reach', clusters: reached, revision: previous });
  effects.push({ type: 'notice', kind: 'aborted', message: `rollout of ${state.source} at ${short(state.revision)} aborted: ${reached.length} cluster(s) return to ${short(previous)}${reached.length ? ` (${reached.join(', ')})` : ''}` });
}

/** enterWave starts wave `index` (or completes the rollout past the last): approval first, unless approved. */
function enterWave(state: RolloutRecord, index: number, { now, policy, effects }: StepContext, approved = false): void {
  const at = now.toISOString();
  delete state.soakUntil;
  state.batch = [];
  state.phaseSince = at;
  if (index >= policy.waves.length || index >= state.waves.length) {
    state.phase = 'complete';
    state.wave = Math.max(0, state.waves.length - 1);
    effects.push({ type: 'notice', kind: 'complete', message: `rollout of ${state.source} at ${short(state.revision)} is complete on every wave` });
    return;
  }
  state.wave = index;
  const wave = policy.waves[index]!;
  if (wave.approval && !approved && state.waves[index]!.clusters.length > 0) {
    state.phase = 'waiting-approval';
    effects.push({ type: 'notice', kind: 'waiting-approval', wave: wave.name, message: `rollout of ${state.source} at ${short(state.revision)} waits for an operator before wave ${wave.name}` });
    return;
  }
  state.phase = 'progressing';
  nextBatch(state, now, policy, effects);
}

/** nextBatch reaches the wave's next clusters, or soaks (then moves on) once every cluster of the wave passed. */
function nextBatch(state: RolloutRecord, now: Date, policy: RolloutPolicy, effects: RolloutEffect[]): void {
  const wave = policy.waves[state.wave]!;
  const members = state.waves[state.wave]?.clusters ?? [];
  const remaining = members.filter((cluster) => state.cells[cluster]?.state !== 'ready');
  if (remaining.length === 0) {
    const reached = members.map((cluster) => Date.parse(state.cells[cluster]?.reachedAt ?? '')).filter((at) => !Number.isNaN(at));
    const durationMs = reached.length > 0 ? now.getTime() - Math.min(...reached) : 0;
    if (members.length > 0) effects.push({ type: 'notice', kind: 'wave-passed', wave: wave.name, durationMs, message: `rollout of ${state.source} at ${short(state.revision)}: wave ${wave.name} is Ready${wave.soakMs > 0 ? `, soaking ${Math.round(wave.soakMs / 1000)} s` : ''}` });
    if (wave.soakMs > 0 && members.length > 0) {
      state.phase = 'soaking';
      state.phaseSince = now.toISOString();
      state.soakUntil = new Date(now.getTime() + wave.soakMs).toISOString();
      return;
    }
    return enterWave(state, state.wave + 1, { now, policy, effects });
  }
  const batch = remaining.slice(0, batchSize(wave.maxParallel, members.length));
  const at = now.toISOString();
  for (const cluster of batch) {
    state.targets[cluster] = state.revision;
    state.cells[cluster] = { wave: state.wave, state: 'applying', reachedAt: at };
  }
  state.batch = batch;
  state.phaseSince = at;
  effects.push({ type: 'reach', clusters: [...batch], revision: state.revision });
}

function halt(state: RolloutRecord, finding: GateFinding, now: Date, effects: RolloutEffect[]): void {
  const halted: RolloutHalt = { cluster: finding.cluster, ...(finding.objectKey ? { objectKey: finding.objectKey } : {}), reason: finding.reason, at: now.toISOString() };
  state.phase = 'halted';
  state.halt = halted;
  delete state.held;
  state.phaseSince = halted.at;
  state.cells[finding.cluster] = { ...cellOf(state, finding.cluster), state: 'failed' };
  const wave = state.waves[state.wave]?.name ?? String(state.wave);
  effects.push({
    type: 'notice', kind: 'halted', wave, halt: halted,
    message: `rollout of ${state.source} at ${short(state.revision)} halted in wave ${wave}: ${finding.cluster}${finding.objectKey ? ` ${finding.objectKey}` : ''}: ${finding.reason}`,
  });
}

/**
 * joinAndLeave keeps the waves in step with the clusters there are now: one that joined goes to
 * its wave (reached at once when that wave has passed, else in its turn, at the last good revision
 * until then); one that left is dropped, so a gate never waits for a cluster that is gone.
 */
function joinAndLeave(state: RolloutRecord, clusters: readonly ClusterTarget[], now: Date, policy: RolloutPolicy, effects: RolloutEffect[]): void {
  const present = new Set(clusters.map((cluster) => cluster.name));
  for (const wave of state.waves) wave.clusters = wave.clusters.filter((cluster) => present.has(cluster));
  state.batch = state.batch.filter((cluster) => present.has(cluster));
  const placed = new Set(state.waves.flatMap((wave) => wave.clusters));
  const joined = clusters.filter((cluster) => !placed.has(cluster.name));
  if (joined.length === 0) return;
  const assigned = assignWaves(policy, joined);
  const reachNow: string[] = [];
  assigned.forEach((names, index) => {
    const wave = state.waves[index];
    if (!wave) return;
    wave.clusters = [...wave.clusters, ...names].sort();
    const passed = index < state.wave || state.phase === 'complete' || (index === state.wave && state.phase === 'soaking');
    for (const name of names) {
      if (passed && state.phase !== 'aborted') {
        state.targets[name] = state.revision;
        state.cells[name] = { wave: index, state: 'applying', reachedAt: now.toISOString() };
        reachNow.push(name);
      } else {
        const kept = rolloutTargetOf(state, name);
        if (kept) state.targets[name] = kept;
        state.cells[name] = { wave: index, state: 'waiting' };
      }
    }
  });
  if (reachNow.length > 0) effects.push({ type: 'reach', clusters: reachNow, revision: state.revision });
}

function cellOf(state: RolloutRecord, cluster: string): RolloutRecord['cells'][string] {
  return state.cells[cluster] ?? { wave: state.wave, state: 'waiting' };
}

function sameClusters(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((cluster) => b.includes(cluster));
}

function short(revision: string): string {
  return revision.slice(0, 12);
}
