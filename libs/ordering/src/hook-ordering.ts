import { contentHash, describeObject, parseHook, parseObjectKey, type Hook } from '@tidemark/contracts';
import type { Dependency, HookRun, OrderedObject, OrderingNode } from './ordering-types';

export type { HookRun } from './ordering-types';

/** HookReadings are the hooks of a revision, keyed by object: a run, a skipped Helm hook (never applied), or a problem. */
export type HookReadings = Map<string, { run?: HookRun; skipped?: string; problem?: string }>;

const runIdLength = 10;

/** readHooks finds the revision's hooks and gives each its run at this revision. */
export function readHooks(objects: readonly OrderedObject[]): HookReadings {
  const readings: HookReadings = new Map();
  const applied: [string, string][] = [];
  for (const entry of objects) {
    const reading = parseHook(entry.object);
    if (reading.hook || reading.skipped || reading.problem) readings.set(entry.objectKey, { ...(reading.skipped ? { skipped: reading.skipped } : {}), ...(reading.problem ? { problem: reading.problem } : {}) });
    else applied.push([entry.objectKey, entry.specHash]);
  }
  const appliedDigest = contentHash(applied.sort(([a], [b]) => a.localeCompare(b)));
  for (const entry of objects) {
    const hook = readings.has(entry.objectKey) ? parseHook(entry.object).hook : undefined;
    // The hook's own spec is in its run id too: a changed Job is a new Job, never an edit of an immutable one.
    const runId = contentHash({ applied: appliedDigest, hook: entry.specHash }).slice(0, runIdLength);
    if (hook) readings.set(entry.objectKey, { run: { hook, runId, specHash: hookSpecHash(entry.specHash, runId) } });
  }
  return readings;
}

/** hookSpecHash is a hook run's spec hash: a new run id is a new spec, as far as waiting and stalling go. */
export function hookSpecHash(specHash: string, runId: string): string {
  return contentHash({ hook: specHash, runId });
}

/**
 * preDeleteRun is a pre-delete hook's run when its source is being deleted: a run id of its own,
 * so it is never mistaken for the hook's listing while the source lived, nor for an earlier run.
 */
export function preDeleteRun(run: HookRun): HookRun {
  const runId = contentHash({ preDelete: run.runId }).slice(0, runIdLength);
  return { hook: run.hook, runId, specHash: hookSpecHash(run.specHash, runId) };
}

/**
 * addHookDependencies orders a revision around its hooks: pre-apply hooks run by weight (each
 * weight waits for the weight below it), every object that is not a hook waits for all of them
 * (Namespaces and CRDs excepted: hooks need them), and post-apply hooks wait for every such
 * object, then by weight among themselves. An apply-failed hook waits for nothing; it watches
 * those objects and hooks (hookWatches) and the pipeline runs it when one fails. pre-delete hooks are
 * ordered by nothing here: they run only when their source is deleted (the pipeline's stage-pre-delete).
 */
export function addHookDependencies(nodes: ReadonlyMap<string, OrderingNode>, hooks: HookReadings, specHashes: ReadonlyMap<string, string>): void {
  const phase = (name: Hook['phase']) => [...nodes.values()].filter((node) => hooks.get(node.objectKey)?.run?.hook.phase === name);
  const pre = phase('pre-apply');
  const post = phase('post-apply');
  const applied = [...nodes.values()].filter((node) => !hooks.has(node.objectKey));
  orderByWeight(pre, hooks, specHashes);
  orderByWeight(post, hooks, specHashes);
  for (const node of applied) {
    if (isInfrastructure(node.objectKey)) continue;
    for (const hook of pre) add(node, hook.objectKey, specHashes);
  }
  for (const hook of post) for (const node of applied) add(hook, node.objectKey, specHashes);
  // An apply-failed hook watches them and the pre- and post-apply hooks instead of waiting for them: it runs when one fails.
  const watched = [...applied, ...pre, ...post];
  for (const hook of phase('apply-failed')) hook.hookWatches = watched.map((node) => dependencyOn(node.objectKey, specHashes));
}

/** orderByWeight makes each hook wait for every hook of the nearest lower weight of its phase. */
function orderByWeight(phase: readonly OrderingNode[], hooks: HookReadings, specHashes: ReadonlyMap<string, string>): void {
  const weightOf = (node: OrderingNode) => hooks.get(node.objectKey)!.run!.hook.weight;
  const weights = [...new Set(phase.map(weightOf))].sort((a, b) => a - b);
  for (let at = 1; at < weights.length; at += 1) {
    for (const node of phase.filter((hook) => weightOf(hook) === weights[at])) {
      for (const before of phase.filter((hook) => weightOf(hook) === weights[at - 1])) add(node, before.objectKey, specHashes);
    }
  }
}

function add(node: OrderingNode, objectKey: string, specHashes: ReadonlyMap<string, string>): void {
  if (node.objectKey === objectKey || node.dependencies.some((dependency) => dependency.objectKey === objectKey)) return;
  node.dependencies.push(dependencyOn(objectKey, specHashes));
}

function dependencyOn(objectKey: string, specHashes: ReadonlyMap<string, string>): Dependency {
  return { objectKey, description: describeObject(parseObjectKey(objectKey)), reason: 'hook', specHash: specHashes.get(objectKey)! };
}

function isInfrastructure(objectKey: string): boolean {
  return objectKey.startsWith('core/Namespace/') || objectKey.startsWith('apiextensions.k8s.io/CustomResourceDefinition/');
}
