import { NotReadyError, Reason, describeObject, findCondition, parseObjectKey, verdictOf } from '@tidemark/contracts';
import { objectToken, preDeleteRun, type HookRun, type OrderingNode } from '@tidemark/ordering';
import type { DesiredStateReader, PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { ownPrevious } from '../status/record-failure';

/** PreDeleteRun is the part of the run the pre-delete gate reads (it drops `desired` of a hook whose work is done). */
export type PreDeleteRun = Pick<ReconcileRun, 'job' | 'ref' | 'stage' | 'desired' | 'previous'>;

/** PreDeleteDependencies is what the pre-delete gate reads: whether the source retires, its ordering, the hooks' records, and the wakes. */
export type PreDeleteDependencies = Pick<PipelineDependencies, 'statusStore' | 'ordering' | 'declarations' | 'log' | 'options'> & {
  desired: Pick<DesiredStateReader, 'retiring' | 'orderingAt'>;
};

/**
 * Pre-delete hooks run when their source is deleted, and only then, as Argo CD's PreDelete hooks
 * run only when the whole Application is deleted (never for an object pruned from Git, nor for an
 * orphaning delete: a Source annotated tidemark.dev/prune: "false" prunes nothing and runs nothing).
 * While the source is retiring it declares only them (DesiredStateReader.retiring): each runs, by
 * weight, as any hook does (its own run name, its delete policy, a failure naming it with its log
 * tail); every other object of the source on the cluster waits for all of them before it is pruned,
 * and a failed one blocks the delete. Once nothing else of the source is left, the hooks' runs are
 * pruned too, and the Source's finalizer can go.
 */

/**
 * preDeleteStage gates the prune of a retiring source's object on its pre-delete hooks, and prunes a hook whose work is done.
 * A hook fetch read as retiring is judged as such even if its source no longer is: the Source went
 * while this run was under way, which it does only once nothing of it is left, hooks included. Asking
 * again here would let that late run apply a new hook run (read from the living source's ordering) that
 * nothing prunes any more.
 */
export async function preDeleteStage(run: PreDeleteRun, deps: PreDeleteDependencies): Promise<void> {
  const stillRetiring = deps.desired.retiring?.(run.job.source) === true;
  if (!stillRetiring && !run.desired?.retiring) return;
  run.stage = 'deletion';
  if (run.desired?.retiring) {
    // Nothing of the source is left to protect: the hook leaves with it (deletion prunes its run).
    if (!stillRetiring || await onlyHooksLeft(run, deps)) run.desired = undefined;
    return;
  }
  // An object without a record of its own was pruned already (or never applied): the prune guards let
  // nothing of it be deleted, so it waits for no hook, and never again for hooks whose runs are pruned.
  if (!run.desired && ownPrevious(run)) await waitForHooks(run, deps, await preDeleteHooks(run, deps), 'is pruned');
}

/**
 * preDeleteRunOf is a retiring source's pre-delete hook's run: it waits for every pre-delete hook of
 * the nearest lower weight to have succeeded, then runs under a run id of its own (preDeleteRun).
 */
export async function preDeleteRunOf(run: PreDeleteRun, deps: PreDeleteDependencies, hookRun: HookRun): Promise<HookRun> {
  const hooks = await preDeleteHooks(run, deps);
  const lower = hooks.map(weightOf).filter((weight) => weight < hookRun.hook.weight);
  if (lower.length > 0) {
    const nearest = Math.max(...lower);
    await waitForHooks(run, deps, hooks.filter((node) => weightOf(node) === nearest), 'runs');
  }
  return preDeleteRun(hookRun);
}

/** preDeleteHooks are the pre-delete hooks of the run's revision on its cluster (for a retiring source, all its ordering holds). */
async function preDeleteHooks(run: PreDeleteRun, deps: PreDeleteDependencies): Promise<OrderingNode[]> {
  const ordering = await deps.desired.orderingAt?.(run.job.source, run.job.revision, run.job.cluster);
  return [...(ordering?.nodes.values() ?? [])].filter((node) => node.hook?.hook.phase === 'pre-delete');
}

function weightOf(node: OrderingNode): number {
  return node.hook!.hook.weight;
}

/**
 * waitForHooks returns once every hook's pre-delete run has succeeded. One that failed blocks the
 * run with its message (which names the hook and quotes its log's tail); one that has not ended
 * makes it wait, woken when the hook's record changes.
 */
async function waitForHooks(run: PreDeleteRun, deps: PreDeleteDependencies, hooks: readonly OrderingNode[], what: string): Promise<void> {
  const { source, cluster } = run.job;
  const subject = `Source ${source} is being deleted, and ${describeObject(run.ref)} ${what} only after its pre-delete hooks have succeeded`;
  const recheckMs = deps.options?.dependencyRecheckMs ?? 60_000;
  let waiting: string | undefined;
  const unstarted: OrderingNode[] = [];
  for (const node of hooks) {
    const { state, message, started } = await preDeleteVerdict(deps, cluster, node);
    const hook = `pre-delete hook ${describeObject(parseObjectKey(node.objectKey))}`;
    if (state === 'Failed') {
      throw new NotReadyError(Reason.DependencyFailed, `${subject}: ${hook} failed, so nothing is deleted. ${message} To delete the Source and leave its objects in place, annotate it tidemark.dev/prune: "false".`, recheckMs, { category: 'transient' });
    }
    if (state !== 'Ready') waiting ??= hook;
    if (!started) unstarted.push(node);
  }
  if (!waiting) return;
  for (const node of hooks) await deps.ordering?.register(cluster, objectToken(node.objectKey), run.job);
  // Registered first: a hook woken here that ends at once still wakes this run.
  for (const node of unstarted) await startHook(run, deps, node);
  throw new NotReadyError(Reason.DependencyNotReady, `${subject}: waiting for ${waiting}.`, recheckMs);
}

/**
 * startHook queues a pre-delete hook's run that may have no job: the Source's retire step
 * (libs/fanout's retireSource) queues only the objects that hold a record, and a hook holds none
 * when its Source was deleted before the hook's first run, or when Redis lost the records. Without
 * this the hook would never run and every object waiting for it would wait for ever. The queue keeps
 * one job per object, and the hook's run name is fixed per revision, so asking twice runs it once.
 */
async function startHook(run: PreDeleteRun, deps: PreDeleteDependencies, node: OrderingNode): Promise<void> {
  const { source, revision, cluster } = run.job;
  await deps.declarations?.wake(cluster, { source, revision, objectKey: node.objectKey }).catch((error: unknown) =>
    deps.log?.warn({ objectKey: node.objectKey, source, err: String(error) }, 'could not queue a pre-delete hook'));
}

/**
 * preDeleteVerdict is what a hook's pre-delete run came to, from its record: Ready, Failed (with the
 * record's message), or not yet; `started` is false while no record of that run exists.
 */
async function preDeleteVerdict(deps: PreDeleteDependencies, cluster: string, node: OrderingNode): Promise<{ state: 'Ready' | 'Failed' | 'Waiting'; message: string; started: boolean }> {
  const record = await deps.statusStore.get(cluster, node.objectKey);
  if (!record || record.specHash !== preDeleteRun(node.hook!).specHash) return { state: 'Waiting', message: '', started: false };
  const state = verdictOf(record).state;
  const message = findCondition(record.conditions, 'Ready')?.message ?? '';
  if (state === 'Failed' || state === 'Stalled') return { state: 'Failed', message, started: true };
  return { state: state === 'Ready' ? 'Ready' : 'Waiting', message, started: true };
}

/** onlyHooksLeft: every other object the source has on the cluster is gone (or orphaned: kept by a prune guard). */
async function onlyHooksLeft(run: PreDeleteRun, deps: PreDeleteDependencies): Promise<boolean> {
  const { source, cluster } = run.job;
  const hooks = new Set((await preDeleteHooks(run, deps)).map((node) => node.objectKey));
  const held = await deps.statusStore.holders(source, [cluster]);
  for (const objectKey of held.keys()) {
    if (hooks.has(objectKey)) continue;
    const record = await deps.statusStore.get(cluster, objectKey);
    if (findCondition(record?.conditions, 'Ready')?.reason !== Reason.Orphaned) return false;
  }
  return true;
}
