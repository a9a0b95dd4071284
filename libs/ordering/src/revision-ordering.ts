import { describeObject, formatObjectKey, groupOf, parseObjectKey, type KubernetesManifest } from '@tidemark/contracts';
import { dependsOnAnnotation, parseDependsOn } from './dependency-ref';
import { findCycles } from './find-cycles';
import { parseSyncWave, syncWaveAnnotation } from './sync-wave';
import { addHookDependencies, readHooks, type HookReadings } from './hook-ordering';
import type { Dependency, OrderedObject, OrderingNode, RevisionOrdering } from './ordering-types';

export type { DependencyReason, Dependency, OrderedObject, OrderingNode, RevisionOrdering } from './ordering-types';

/** dependencyValues lists what an object says it depends on: the annotation, and a kind's own `spec.dependsOn` list. */
function dependencyValues(object: KubernetesManifest): string[] {
  const values: string[] = [];
  const annotation = object.metadata.annotations?.[dependsOnAnnotation];
  if (annotation !== undefined) values.push(annotation);
  const field = (object.spec as { dependsOn?: unknown } | undefined)?.dependsOn;
  if (Array.isArray(field)) values.push(...field.filter((entry): entry is string => typeof entry === 'string'));
  return values;
}

/**
 * buildRevisionOrdering reads the ordering of every object of one source revision: depends-on
 * references, sync waves (each object waits for every object of the nearest lower wave), and the
 * implicit order of a Namespace before the objects in it and a CRD before its custom resources,
 * when the same revision declares them; hooks run around all of that in their phase
 * (hook-ordering.ts). Cycles are found here, when the revision is read.
 */
export function buildRevisionOrdering(source: string, declared: readonly OrderedObject[]): RevisionOrdering {
  const hooks = readHooks(declared);
  // What waits for a hook waits for its run at this revision, whose spec hash says so.
  const objects = declared.map((entry) => {
    const run = hooks.get(entry.objectKey)?.run;
    return run ? { ...entry, specHash: run.specHash } : entry;
  });
  const byKey = new Map(objects.map((entry) => [entry.objectKey, entry]));
  const crds = crdsByGroupKind(objects);
  const nodes = new Map<string, OrderingNode>();
  for (const entry of objects) nodes.set(entry.objectKey, withHook(readNode(source, entry, byKey, crds), hooks));
  addWaveDependencies(nodes, byKey, hooks);
  addHookDependencies(nodes, hooks, new Map(objects.map((entry) => [entry.objectKey, entry.specHash])));
  const edges = new Map([...nodes].map(([key, node]) => [key, node.dependencies.filter((dependency) => dependency.specHash !== undefined).map((dependency) => dependency.objectKey)]));
  const cycles = findCycles(edges);
  for (const cycle of cycles) for (const key of cycle) nodes.get(key)!.cycle = cycle;
  return { nodes, cycles };
}

function withHook(node: OrderingNode, hooks: HookReadings): OrderingNode {
  const reading = hooks.get(node.objectKey);
  if (reading?.problem) node.problems.push(reading.problem);
  if (reading?.run) node.hook = reading.run;
  if (reading?.skipped) node.skippedHook = reading.skipped;
  return node;
}

function readNode(source: string, entry: OrderedObject, byKey: ReadonlyMap<string, OrderedObject>, crds: ReadonlyMap<string, OrderedObject>): OrderingNode {
  const problems: string[] = [];
  let wave = 0;
  try {
    wave = parseSyncWave(entry.object.metadata.annotations?.[syncWaveAnnotation]);
  } catch (error) {
    problems.push(`annotation ${syncWaveAnnotation}: ${(error as Error).message}`);
  }
  const parsed = parseDependsOn(dependencyValues(entry.object));
  problems.push(...parsed.problems.map((problem) => `${dependsOnAnnotation}: ${problem}`));
  const dependencies: Dependency[] = [];
  const add = (dependency: Dependency) => {
    if (dependency.objectKey !== entry.objectKey || dependency.reason === 'depends-on') dependencies.push(dependency);
  };
  const ref = parseObjectKey(entry.objectKey);
  const crd = crds.get(`${ref.group}/${ref.kind}`);
  if (crd) add({ objectKey: crd.objectKey, description: describeObject(parseObjectKey(crd.objectKey)), reason: 'crd', specHash: crd.specHash });
  const namespaceKey = ref.namespace ? formatObjectKey({ group: '', kind: 'Namespace', namespace: '', name: ref.namespace }) : undefined;
  const namespace = namespaceKey ? byKey.get(namespaceKey) : undefined;
  if (namespace) add({ objectKey: namespace.objectKey, description: `Namespace ${ref.namespace}`, reason: 'namespace', specHash: namespace.specHash });
  for (const dependency of parsed.refs) {
    const here = dependency.source === undefined || dependency.source === source ? byKey.get(dependency.objectKey) : undefined;
    add({ objectKey: dependency.objectKey, description: dependency.description, reason: 'depends-on', ...(dependency.source ? { source: dependency.source } : {}), ...(here ? { specHash: here.specHash } : {}) });
  }
  return { objectKey: entry.objectKey, path: entry.path, wave, dependencies, problems };
}

/**
 * addWaveDependencies makes every object wait for the objects of the nearest lower wave. Namespaces
 * and CRDs stand outside the waves: what needs them waits for them anyway, and a Namespace left in
 * wave 0 would otherwise make a cycle with the objects of a negative wave inside it.
 */
function addWaveDependencies(nodes: Map<string, OrderingNode>, byKey: ReadonlyMap<string, OrderedObject>, hooks: HookReadings): void {
  const waves = new Map<number, OrderingNode[]>();
  for (const node of nodes.values()) {
    // Hooks run in their phase, around the waves (hook-ordering.ts).
    if (!outsideWaves(node.objectKey) && !hooks.has(node.objectKey)) waves.set(node.wave, [...(waves.get(node.wave) ?? []), node]);
  }
  const order = [...waves.keys()].sort((a, b) => a - b);
  for (let at = 1; at < order.length; at += 1) {
    const lower = waves.get(order[at - 1]!)!;
    for (const node of waves.get(order[at]!)!) {
      for (const before of lower) {
        if (node.dependencies.some((dependency) => dependency.objectKey === before.objectKey)) continue;
        node.dependencies.push({ objectKey: before.objectKey, description: describeObject(parseObjectKey(before.objectKey)), reason: 'sync-wave', specHash: byKey.get(before.objectKey)!.specHash, wave: before.wave });
      }
    }
  }
}

function outsideWaves(objectKey: string): boolean {
  return objectKey.startsWith('core/Namespace/') || objectKey.startsWith('apiextensions.k8s.io/CustomResourceDefinition/');
}

/** crdsByGroupKind indexes the revision's CRDs by the group and kind they serve. */
function crdsByGroupKind(objects: readonly OrderedObject[]): Map<string, OrderedObject> {
  const crds = new Map<string, OrderedObject>();
  for (const entry of objects) {
    const { object } = entry;
    if (object.kind !== 'CustomResourceDefinition' || groupOf(object.apiVersion) !== 'apiextensions.k8s.io') continue;
    const spec = object.spec as { group?: unknown; names?: { kind?: unknown } } | undefined;
    if (typeof spec?.group === 'string' && typeof spec.names?.kind === 'string') crds.set(`${spec.group}/${spec.names.kind}`, entry);
  }
  return crds;
}

/** describeCycle names a cycle's members for a message. */
export function describeCycle(cycle: readonly string[]): string {
  const names = cycle.map((key) => describeObject(parseObjectKey(key)));
  return names.length === 1 ? `${names[0]} depends on itself` : `${names.join(', ')} depend on each other`;
}
