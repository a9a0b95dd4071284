import { contentHash, describeObject, parseHook, parseObjectKey, type Hook } from '@tidemark/contracts';
import type { OrderedObject, OrderingNode } from './revision-ordering';

/**
 * HookRun is one hook's run at a source revision. `runId` is a digest of what the revision applies
 * on the cluster (every object that is not a hook, with its spec): it changes exactly when that
 * does, so a hook runs again when, and only when, a revision changes what the source applies.
 */
export interface HookRun {
  hook: Hook;
  runId: string;
  /** The spec hash the hook's run is Ready at: its own spec and the run id. What waits for it asks for this one. */
  specHash: string;
}

/** HookReadings are the hooks of a revision, keyed by object: a run, a skipped Helm hook (never applied), or a problem. */
export type HookReadings = Map<string, { run?: HookRun; skipped?: string; problem?: string }>;

const runIdLength = 10;

/** readHooks finds the revision's hooks and gives each its run at this revision. */
export function readHooks(objects: readonly OrderedObject[]): HookReadings {
  const readings: HookReadings = new Map();
  const applied: [string, string][] = [];
  for (const entry of objects) {
    const reading = parseHook(entry.object);
    if (reading.hook || reading.skipped || reading.problem) readings.set(entry.objectKey, reading);
    else applied.push([entry.objectKey, entry.specHash]);
  }
  const runId = contentHash(applied.sort(([a], [b]) => a.localeCompare(b))).slice(0, runIdLength);
  for (const entry of objects) {
    const reading = readings.get(entry.objectKey);
    if (reading?.hook) readings.set(entry.objectKey, { run: { hook: reading.hook, runId, specHash: hookSpecHash(entry.specHash, runId) } });
  }
  return readings;
}

/** hookSpecHash is a hook run's spec hash: a new run id is a new spec, as far as waiting and stalling go. */
export function hookSpecHash(specHash: string, runId: string): string {
  return contentHash({ hook: specHash, runId });
}

/**
 * addHookDependencies orders a revision around its hooks: pre-apply hooks run by weight (each
 * weight waits for the weight below it), every object that is not a hook waits for all of them
 * (Namespaces and CRDs excepted: hooks need them), and post-apply hooks wait for every such
 * object, then by weight among themselves. apply-failed and pre-delete hooks wait for nothing
 * here; the pipeline decides when they run.
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
  node.dependencies.push({ objectKey, description: describeObject(parseObjectKey(objectKey)), reason: 'hook', specHash: specHashes.get(objectKey)! });
}

function isInfrastructure(objectKey: string): boolean {
  return objectKey.startsWith('core/Namespace/') || objectKey.startsWith('apiextensions.k8s.io/CustomResourceDefinition/');
}
