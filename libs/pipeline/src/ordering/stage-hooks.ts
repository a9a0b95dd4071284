import { getObject, listObjects, readPodLog } from '@tidemark/cluster';
import {
  NotReadyError, TerminalError, describeObject, findCondition, hookRunAnnotation, hookRunName, isHookObject, logTail, messageOf, parseHook, scrubText, verdictOf,
  type KubernetesManifest, type ObjectStatus,
} from '@tidemark/contracts';
import type { Health } from '@tidemark/kinds';
import { objectToken, type OrderingNode } from '@tidemark/ordering';
import type { DesiredStateReader, PipelineDependencies } from '../dependencies';
import type { HookState, ReconcileRun } from '../run';
import type { AppliedObjects } from '../apply/apply-results';
import { pruneLiveObject, type PruneDependencies, type PruneRun } from '../prune/stage-prune';
import { preDeleteRunOf, type PreDeleteDependencies, type PreDeleteRun } from '../deletion/stage-pre-delete';

/** HooksRun is the part of the run a sync hook's steps read (readHookRun sets its specHash to the run's). */
export type HooksRun = PruneRun & PreDeleteRun & Pick<ReconcileRun, 'specHash'>;

/** HooksDependencies is what a sync hook's steps read: the revision's ordering, the records, the wait registry, and prune's own for its delete policy. */
export type HooksDependencies = PruneDependencies & PreDeleteDependencies & Pick<PipelineDependencies, 'ordering'> & {
  desired: Pick<DesiredStateReader, 'orderingAt'>;
};

export type { HookState } from '../run';

/** How many log lines, and how much text, a failed hook's message quotes. */
const logLines = 10;
const logLineChars = 200;

/**
 * readHookRun finds whether the run's object is a hook and which run of it this revision wants
 * (`node` is what readOrdering read; without ordering it is read here). A hook's spec hash becomes
 * its run's, so what waits for it waits for this run. An apply-failed hook waits here until every
 * object of the revision has a verdict, and runs only when one failed.
 */
export async function readHookRun(run: HooksRun, deps: HooksDependencies, node: OrderingNode | undefined): Promise<HookState | undefined> {
  if (!run.desired || !run.object || !isHookObject(run.desired.object)) return undefined;
  const found = node ?? (await deps.desired.orderingAt?.(run.job.source, run.job.revision, run.job.cluster))?.nodes.get(run.job.objectKey);
  if (found?.skippedHook) return { verdict: { status: 'Ready', message: found.skippedHook } };
  const reading = parseHook(run.desired.object);
  if (reading.problem) throw new TerminalError('InvalidHook', `${run.desired.path}: ${describeObject(run.ref)}: ${reading.problem} Fix it in Git.`);
  // Without ordering (no revision to read it from), the run is the revision's.
  const listed = found?.hook ?? { hook: reading.hook!, runId: run.job.revision.slice(0, 10), specHash: `${run.specHash}@${run.job.revision}` };
  // A pre-delete hook of a source being deleted: its run, after the lower weights' (stage-pre-delete).
  const hookRun = run.desired.retiring && listed.hook.phase === 'pre-delete' ? await preDeleteRunOf(run, deps, listed) : listed;
  run.specHash = hookRun.specHash;
  return phaseGate(run, deps, found, { run: hookRun, name: hookRunName(run.object.metadata.name, hookRun.runId) });
}

/** phaseGate: a pre-delete hook runs only when its source is deleted; an apply-failed hook runs only after a failure; a run that ended keeps its verdict. */
async function phaseGate(run: HooksRun, deps: HooksDependencies, found: OrderingNode | undefined, state: HookState): Promise<HookState> {
  const hookRun = state.run!;
  if (hookRun.hook.phase === 'pre-delete' && !run.desired?.retiring) return { ...state, verdict: { status: 'Ready', message: `${describeObject(run.ref)} is a pre-delete hook: it runs when its Source is deleted, before anything of it is pruned.` } };
  if (hookRun.hook.phase === 'apply-failed') {
    const failed = await applyFailedGate(run, deps, found);
    if (!failed) return { ...state, verdict: { status: 'Ready', message: `The apply of revision ${run.job.revision.slice(0, 12)} succeeded; apply-failed hook ${describeObject(run.ref)} did not run.` } };
  }
  return { ...state, ...(await endedBefore(run, state)) };
}

/**
 * applyFailedGate: an apply-failed hook runs once an object of the revision failed (Failed or
 * Stalled at this revision's spec), is not needed once all are Ready, and waits meanwhile, to
 * be woken by each of them.
 */
async function applyFailedGate(run: HooksRun, deps: HooksDependencies, node: OrderingNode | undefined): Promise<boolean> {
  const watched = node?.hookWatches ?? [];
  let waiting: string | undefined;
  for (const dependency of watched) {
    const record = await deps.statusStore.get(run.job.cluster, dependency.objectKey);
    const state = record && record.specHash === dependency.specHash ? verdictOf(record).state : 'Unknown';
    if (state === 'Failed' || state === 'Stalled') return true;
    if (state !== 'Ready') waiting ??= dependency.description;
  }
  if (!waiting) return false;
  for (const dependency of watched) await deps.ordering?.register(run.job.cluster, objectToken(dependency.objectKey), run.job);
  throw new NotReadyError('DependencyNotReady', `apply-failed hook ${describeObject(run.ref)} waits for every object of the revision to succeed or fail: ${waiting} has not yet.`, deps.options?.dependencyRecheckMs ?? 60_000);
}

/** endedBefore: a run that ended at this spec and whose object is gone (its delete policy) keeps its verdict. */
async function endedBefore(run: HooksRun, state: HookState): Promise<Pick<HookState, 'verdict'>> {
  const previous: ObjectStatus | undefined = run.previous;
  if (!previous || previous.specHash !== run.specHash || !run.object) return {};
  const ready = findCondition(previous.conditions, 'Ready');
  const ended = ready?.status === 'True' || (ready?.status === 'False' && ready.reason === 'HealthCheckFailed');
  if (!ended) return {};
  const live = await getObject(run.connection, { apiVersion: run.object.apiVersion, kind: run.object.kind, namespace: run.object.metadata.namespace, name: state.name! });
  if (live) return {};
  return { verdict: { status: ready.status === 'True' ? 'Ready' : 'Failed', message: ready.message } };
}

/** hookRunObject is the object a hook's run applies: the Git object under the run's name, marked as a run (never drift). */
export function hookRunObject(object: KubernetesManifest, state: HookState): KubernetesManifest {
  return {
    ...object,
    metadata: { ...object.metadata, name: state.name!, annotations: { ...object.metadata.annotations, [hookRunAnnotation]: state.run!.runId } },
  };
}

/**
 * hookVerdictStage says what a hook's run came to: a failed run names the hook, its phase and
 * run, with its pods' last log lines (bounded and scrubbed); the delete policy then removes the
 * run's object (hook-succeeded, hook-failed) through the prune guards, like every delete. A run
 * from an earlier revision was pruned already: its object left the inventory (before-hook-creation).
 */
export async function hookVerdictStage(run: HooksRun, deps: HooksDependencies, applied: AppliedObjects, health: Health): Promise<Health> {
  const state = run.hookState;
  if (!state?.run) return state?.verdict ?? health;
  run.stage = 'hooks';
  if (state.verdict) return state.verdict;
  const { hook, runId } = state.run;
  const subject = `${hook.phase} hook ${describeObject(run.ref)} (run ${runId}, ${run.object?.kind} ${state.name})`;
  if (health.status === 'Progressing') return { status: 'Progressing', message: `${subject} is running: ${health.message}` };
  const verdict: Health = health.status === 'Ready'
    ? { status: 'Ready', message: `${subject} succeeded for revision ${run.job.revision.slice(0, 12)}.` }
    : { status: 'Failed', message: `${subject} failed: ${health.message}${await lastLogLines(run, applied.live)}` };
  const policy = verdict.status === 'Ready' ? 'hook-succeeded' : 'hook-failed';
  if (hook.deletePolicies.includes(policy) && applied.live) {
    const pruned = await pruneLiveObject(run, deps, applied.live);
    // Deleted: nothing is left to prune later, and the record's verdict stands for the run (endedBefore).
    if (pruned.deleted.length > 0) applied.inventory = [];
  }
  return verdict;
}

/** lastLogLines quotes the newest pod's last lines of a Job (or the Pod itself), or says why it cannot. */
async function lastLogLines(run: HooksRun, live: KubernetesManifest | undefined): Promise<string> {
  if (!live || (live.kind !== 'Job' && live.kind !== 'Pod')) return '';
  const namespace = live.metadata.namespace ?? '';
  try {
    const pod = live.kind === 'Pod' ? live : newest(await listObjects(run.connection, 'v1', 'Pod', namespace, { 'job-name': live.metadata.name }));
    const container = (pod?.spec as { containers?: { name?: string }[] } | undefined)?.containers?.[0]?.name;
    if (!pod || !container) return ' No pod of it is left to read a log from.';
    return formatLogTail(pod.metadata.name, await readPodLog(run.connection, namespace, pod.metadata.name, { container, tailLines: logLines, limitBytes: logLines * logLineChars, timeoutMs: 5_000 }));
  } catch (error) {
    return ` Its log could not be read: ${scrubText(messageOf(error)).slice(0, 300)}`;
  }
}

function newest(pods: readonly KubernetesManifest[]): KubernetesManifest | undefined {
  return [...pods].sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')))[0];
}

/** formatLogTail quotes at most the last ten lines, each cut to 200 characters, cleaned and scrubbed by logTail. */
export function formatLogTail(pod: string, text: string): string {
  const lines = logTail(text, { lines: logLines, lineChars: logLineChars, skipBlank: true });
  if (lines.length === 0) return ` Pod ${pod} logged nothing.`;
  return ` Last log lines of pod ${pod}: ${lines.join(' | ')}`;
}
