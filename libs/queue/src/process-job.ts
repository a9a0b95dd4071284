import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { Value } from '@sinclair/typebox/value';
import { dropTraceparent, isReconcileFailure, jobSchemaVersion, ReconcileJob, redisSchemaVersion, TerminalError, messageOf, type FailureCategory, type ReconcileOutcome, type StalledAt } from '@tidemark/contracts';
import { computeBackoff, type BackoffOptions } from './backoff';
import { JobAbortedError } from './errors/job-aborted-error';
import type { LeaseWatch } from './lease-watch';
import type { FailureRecord, StalledMarker } from './object-records';
import type { ObjectState, RunState } from './object-state';
import type { ReconcileHandler } from './outcome';

/** ProcessContext is what the processor of one cluster's queue needs. */
export interface ProcessContext {
  state: ObjectState;
  leases: LeaseWatch;
  /** Slots to delete once their job has completed (objects removed from Git), by job id. */
  removedSlots: Map<string, string>;
  handler: ReconcileHandler;
  /** With a resync schedule, a routine look-again at a Ready object waits there, its job completed (ResyncSchedule). */
  resyncSchedule: boolean;
  backoff: Required<BackoffOptions>;
  onError: (error: Error) => void;
}

type Settled = { outcome: ReconcileOutcome; error?: undefined } | { outcome?: undefined; error: unknown };

/**
 * createProcessor maps a handler's result to queue behaviour. It throws only DelayedError (the
 * job was moved to delayed, or is left to its lock expiring) and UnrecoverableError (terminal),
 * so BullMQ's own retry never runs: our backoff counts failures per object, not per job.
 */
export function createProcessor(context: ProcessContext) {
  // Three declared parameters: BullMQ passes its abort signal only to such processors.
  return async function process(job: Job<ReconcileJob>, token?: string, signal?: AbortSignal): Promise<string> {
    const id = job.id ?? '';
    const lease = context.leases.track(id, job.processedOn ?? Date.now(), signal);
    try {
      return await run(context, job, token ?? '', lease);
    } catch (error) {
      if (error instanceof DelayedError || error instanceof UnrecoverableError) throw error;
      // Our own bookkeeping failed (Redis unreachable): leave the job active. Its lock expires,
      // the stalled check hands it to a worker again; reconcile is idempotent.
      context.onError(error instanceof Error ? error : new Error(String(error)));
      throw new DelayedError();
    } finally {
      context.leases.untrack(id);
    }
  };
}

/** payloadOf is the job to run: the slot's newest revision, else the job's own data (which may be older). */
async function payloadOf(context: ProcessContext, job: Job<ReconcileJob>, token: string, latest: ReconcileJob | undefined): Promise<ReconcileJob> {
  // A traceparent that is not one is dropped, never the job: trace context is advice.
  const payload = dropTraceparent(latest ?? job.data);
  if (!Value.Check(ReconcileJob, payload)) throw new UnrecoverableError('the job payload is not a ReconcileJob');
  if (isNewerSchema(job.name)) {
    // A job a newer release wrote may mean something this one would misread: leave it, not lose it.
    context.onError(new Error(`job ${job.name} for ${payload.objectKey} has a schema newer than ${redisSchemaVersion}; leaving it for a newer worker`));
    return delay(context, job, token, payload, newerSchemaDelayMs);
  }
  return payload;
}

function isNewerSchema(name: string): boolean {
  const schema = jobSchemaVersion(name);
  return schema === undefined || schema > redisSchemaVersion;
}

/** How long a job of a newer schema waits before a worker looks at it again. */
const newerSchemaDelayMs = 30_000;

async function run(context: ProcessContext, job: Job<ReconcileJob>, token: string, lease: AbortSignal): Promise<string> {
  const started = Date.now();
  // A run never starts on a lock that ran out before it began (the process was held up after BullMQ
  // handed it the job): the stalled check may have given the job to another worker, which may
  // have finished it, and this run would apply beside or after that one.
  await fence(context, job, token, lease);
  const state = await context.state.readForRun(job.data.objectKey);
  const payload = await payloadOf(context, job, token, state.latest);
  await fence(context, job, token, lease);
  const waitMs = job.attemptsStarted <= 1 ? Math.max(0, (job.processedOn ?? started) - job.timestamp - (job.opts.delay ?? 0)) : undefined;
  const settled = await settle(() => context.handler(payload, lease));
  const processingMs = Date.now() - started;
  if (lease.aborted) await handleAborted(job, token, lease, settled);
  if (settled.outcome) return completed(context, { job, token, payload, state }, settled.outcome, { processingMs, waitMs });
  const { error } = settled;
  const record = failureRecord(state, payload, error);
  await context.state.recordFailure(record, processingMs, waitMs, record.terminal ? stalledMarker(payload, record) : undefined);
  if (record.terminal) throw new UnrecoverableError(`${record.code}: ${record.message}`);
  return delay(context, job, token, payload, computeBackoff(record.failures, context.backoff));
}

interface Running {
  job: Job<ReconcileJob>;
  token: string;
  payload: ReconcileJob;
  state: RunState;
}

/** completed records a handler's outcome: still stalled, done, or requeue after a delay. */
async function completed(context: ProcessContext, running: Running, outcome: ReconcileOutcome, times: { processingMs: number; waitMs: number | undefined }): Promise<string> {
  const { job, token, payload, state } = running;
  const { processingMs, waitMs } = times;
  if (outcome.kind === 'done' && outcome.stalled) {
    // The handler found the object still stalled at this revision and did nothing: the cache says so again.
    await context.state.recordStillStalled(payload.objectKey, stalledMarker(payload, outcome.stalled), processingMs, waitMs);
    return 'skipped: stalled at this revision';
  }
  const resyncAt = scheduledResync(context, outcome);
  await context.state.recordSuccess(payload.objectKey, processingMs, waitMs, resyncAt);
  // A scheduled job completes: one parked behind it (a newer revision, a look-again) starts then.
  if (outcome.kind === 'requeue' && resyncAt === undefined) await delay(context, job, token, payload, outcome.afterMs);
  // The slot of a removed object goes only after completion: deleted earlier, a crash would
  // re-run the job from its own, possibly older, data and re-create the object.
  if (payload.reason === 'git-removed' && state.latestRaw) context.removedSlots.set(job.id ?? '', state.latestRaw);
  return 'done';
}

/** scheduledResync: when a Ready object's routine look-again is due, if it waits in the resync schedule. */
function scheduledResync(context: ProcessContext, outcome: ReconcileOutcome): number | undefined {
  if (!context.resyncSchedule || outcome.kind !== 'requeue' || outcome.resync !== true) return undefined;
  return Date.now() + outcome.afterMs;
}

/** stalledMarker: the run's terminal failure (or the stall it found again), cached for enqueue and retry. */
function stalledMarker(payload: ReconcileJob, stalled: StalledAt): StalledMarker {
  return { revision: payload.revision, code: stalled.code, message: stalled.message, at: new Date().toISOString() };
}

/** settle runs the handler and captures how it ended, sync throws included. */
async function settle(handle: () => Promise<ReconcileOutcome>): Promise<Settled> {
  try {
    const outcome = await handle();
    if (outcome?.kind === 'done' || (outcome?.kind === 'requeue' && outcome.afterMs >= 0)) return { outcome };
    return { error: new Error(`the handler returned ${JSON.stringify(outcome)}, not a ReconcileOutcome`) };
  } catch (error) {
    return { error };
  }
}

/** fence ends the run before its handler, touching nothing, when this worker no longer holds the job. */
async function fence(context: ProcessContext, job: Job<ReconcileJob>, token: string, lease: AbortSignal): Promise<void> {
  if (!context.leases.holds(job.id ?? '')) await handleAborted(job, token, lease, { error: lease.reason });
}

/**
 * handleAborted: a lost lease means another worker may own the object, so touch nothing. A
 * drain hands a failed or interrupted job back at once; one that finished completes normally.
 */
async function handleAborted(job: Job<ReconcileJob>, token: string, lease: AbortSignal, settled: Settled): Promise<void> {
  const reason: unknown = lease.reason;
  if (reason instanceof JobAbortedError && reason.abortCause === 'lease-lost') throw new DelayedError();
  if (settled.outcome) return;
  await job.moveToDelayed(Date.now(), token);
  throw new DelayedError();
}

function failureRecord(state: RunState, payload: ReconcileJob, error: unknown): FailureRecord {
  const previous = state.failure?.revision === payload.revision ? state.failure.failures : 0;
  const terminal = error instanceof TerminalError;
  const category: FailureCategory = terminal ? 'invalid' : isReconcileFailure(error) ? error.category : 'internal';
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'Unknown';
  const message = messageOf(error);
  return { objectKey: payload.objectKey, revision: payload.revision, failures: previous + 1, code, message, terminal, category, at: new Date().toISOString() };
}

/**
 * delay moves the job to delayed. A newer revision or a look-again enqueued while we ran must not
 * wait out the delay: BullMQ parked it as the job's successor, released only when this job
 * finishes, so we promote. An enqueue after the move replaces the delayed job itself.
 */
async function delay(context: ProcessContext, job: Job<ReconcileJob>, token: string, payload: ReconcileJob, ms: number): Promise<never> {
  await job.moveToDelayed(Date.now() + Math.max(0, Math.round(ms)), token);
  const { latest, nudged } = await context.state.latestAndNudge(payload.objectKey);
  if (nudged || (latest !== undefined && latest !== payload.revision)) {
    await job.promote().catch(() => undefined);
  }
  throw new DelayedError();
}
