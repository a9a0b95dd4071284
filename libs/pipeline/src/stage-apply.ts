import { TerminalError } from '@tidemark/contracts';
import { applyChangeSet, applyWithChangeSet, toReconcileFailure } from '@tidemark/cluster';
import { healthOf, type Health } from '@tidemark/kinds';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { clusterActions } from './cluster-actions';
import { previousInventory, pruneEntries } from './prune';
import { inventoryEntry, pruneEmptyAnnotation, staleEntries } from './tracking';
import { customResourceToApply } from './stage-validate';
import { driftCheck } from './drift-check';

/**
 * applyStage applies the CR (for a kind) and the rendered objects with server-side apply in
 * dependency order, prunes what left the inventory, lets the kind act, and reads health.
 */
export async function applyStage(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  run.stage = 'apply';
  const before = previousInventory(run);
  const drift = driftCheck(run, deps);
  try {
    if (run.plugin && run.object) {
      const crEntry = await applyWithChangeSet(run.connection, customResourceToApply(run), drift.options);
      run.live = crEntry.object;
    }
    run.changes = await applyChangeSet(run.connection, run.rendered, drift.options);
    run.drift = { healed: drift.healed, reported: drift.reported };
    if (!run.plugin) run.live = run.changes[0]?.object ?? run.live;
    run.inventory = run.plugin ? run.rendered.map(inventoryEntry) : [];
    await pruneStale(run, before);
    await act(run, deps);
    observe(run);
  } catch (error) {
    throw toReconcileFailure(error, `apply ${run.job.objectKey}`);
  }
  run.health = combinedHealth(run);
}

async function pruneStale(run: ReconcileRun, before: ReturnType<typeof previousInventory>): Promise<void> {
  const stale = staleEntries(before, run.inventory);
  if (stale.length === 0) return;
  const optedIn = run.object?.metadata.annotations?.[pruneEmptyAnnotation] === 'true';
  if (run.inventory.length === 0 && !optedIn) {
    throw new TerminalError('EmptyRender',
      `${run.object?.kind} ${run.object?.metadata.name} now renders nothing, which would prune all ${stale.length} objects it rendered before. ` +
      `If that is intended, annotate it with ${pruneEmptyAnnotation}: "true".`);
  }
  run.pruned.push(...(await pruneEntries(run.connection, stale)));
}

async function act(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  if (!run.plugin?.act || !run.defaulted) return;
  const previousStatus = run.previous?.kindStatus ?? {};
  const actions = clusterActions(run.connection, deps.actionsConnectionFor(run.job.cluster));
  const result = await run.plugin.act({ object: run.defaulted as never, previousStatus, cluster: actions, now: deps.now?.() ?? new Date() });
  run.kindStatus = { ...previousStatus, ...(result.status as Record<string, unknown>) };
  run.kindConditions = result.conditions ?? [];
}

/** observe lets a kind read figures off what it owns (WebApp's readyReplicas). */
function observe(run: ReconcileRun): void {
  if (!run.plugin?.observeStatus) return;
  const owned = run.changes.map((entry) => entry.object);
  run.kindStatus = { ...run.kindStatus, ...(run.plugin.observeStatus(owned) as Record<string, unknown>) };
}

/** combinedHealth is the first owned object that is not ready, else Ready. */
function combinedHealth(run: ReconcileRun): Health {
  const objects = run.plugin ? run.changes.map((entry) => entry.object) : run.live ? [run.live] : [];
  for (const object of objects) {
    const health = healthOf(object);
    if (health.status !== 'Ready') return health;
  }
  const failing = run.kindConditions.find((condition) => condition.status === 'False' && condition.type !== 'Ready');
  if (failing) return { status: 'Progressing', message: failing.message };
  return { status: 'Ready', message: summary(run) };
}

function summary(run: ReconcileRun): string {
  const count = (action: string) => run.changes.filter((entry) => entry.action === action).length;
  return `Applied revision ${run.job.revision.slice(0, 12)}: ${count('created')} created, ${count('configured')} configured, ${count('unchanged')} unchanged, ${run.pruned.length} pruned.`;
}
