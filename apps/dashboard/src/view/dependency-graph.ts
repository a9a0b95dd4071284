import { findCondition, type DependencyEdge, type ObjectStatus } from '@tidemark/contracts';
import { cellStateOf, type CellState } from './cell-state';

/** DependencyNode is one object in a dependency graph, with how it relates to the node above it. */
export interface DependencyNode {
  objectKey: string;
  description: string;
  /** Why the object above waits for this one (waits-on side), or why this one waits for it (waited-on-by side). */
  reason: DependencyEdge['reason'];
  wave?: number;
  source?: string;
  /** The object's state on the cluster; undefined when no record covers it (a live object, or not reconciled yet). */
  state?: CellState;
  /** Ready's reason and message when the object is not Ready: why it holds the one above back. */
  why?: string;
  /** Already on this path: a cycle, shown once and not followed. */
  repeated?: boolean;
  /** Edges the record has but did not keep, or nodes beyond the depth shown. */
  more: number;
  children: DependencyNode[];
}

/** DependencyGraph is what an object waits on, transitively, and what waits on it. */
export interface DependencyGraph {
  waitsOn: DependencyNode[];
  waitedOnBy: DependencyNode[];
  /** Edges of the object itself beyond those its record kept. */
  more: number;
  /** The object's own Ready condition while it waits (DependencyNotReady, DependencyFailed, DependencyCycle). */
  waiting?: string;
}

export interface DependencyLookup {
  /** record is the status record of an object on the graph's cluster. */
  record(objectKey: string): ObjectStatus | undefined;
  /** dependents lists the records on the graph's cluster that wait on an object. */
  dependents(objectKey: string): ObjectStatus[];
}

const waitReasons = new Set(['DependencyNotReady', 'DependencyFailed', 'DependencyCycle']);
/** How deep the graph goes each way, and how many nodes it shows at most per level. */
const maxDepth = 4;
const maxWidth = 25;

/** buildDependencyGraph walks an object's recorded dependencies up and its dependents down, on one cluster (pure). */
export function buildDependencyGraph(status: ObjectStatus, lookup: DependencyLookup): DependencyGraph {
  const path = new Set([status.objectKey]);
  const edges = status.dependencies?.edges ?? [];
  const ready = findCondition(status.conditions, 'Ready');
  return {
    waitsOn: waitsOn(edges, lookup, path, 1),
    waitedOnBy: waitedOnBy(status.objectKey, lookup, path, 1),
    more: Math.max(0, (status.dependencies?.total ?? edges.length) - edges.length),
    ...(ready && ready.status === 'False' && waitReasons.has(ready.reason) ? { waiting: `${ready.reason}: ${ready.message}` } : {}),
  };
}

function waitsOn(edges: readonly DependencyEdge[], lookup: DependencyLookup, path: ReadonlySet<string>, depth: number): DependencyNode[] {
  return edges.slice(0, maxWidth).map((edge) => {
    const record = lookup.record(edge.objectKey);
    const node = nodeOf(edge.objectKey, edge.description, edge, record);
    const next = record?.dependencies?.edges ?? [];
    if (path.has(edge.objectKey)) return { ...node, repeated: true };
    if (depth >= maxDepth) return { ...node, more: next.length };
    const children = waitsOn(next, lookup, new Set([...path, edge.objectKey]), depth + 1);
    return { ...node, children, more: Math.max(0, (record?.dependencies?.total ?? next.length) - children.length) };
  });
}

function waitedOnBy(objectKey: string, lookup: DependencyLookup, path: ReadonlySet<string>, depth: number): DependencyNode[] {
  return lookup.dependents(objectKey).slice(0, maxWidth).map((dependent) => {
    const edge = dependent.dependencies?.edges.find((candidate) => candidate.objectKey === objectKey);
    const description = `${dependent.kind} ${dependent.namespace ? `${dependent.namespace}/` : ''}${dependent.name}`;
    const node = nodeOf(dependent.objectKey, description, edge ?? { reason: 'depends-on' }, dependent);
    if (path.has(dependent.objectKey)) return { ...node, repeated: true };
    const below = lookup.dependents(dependent.objectKey);
    if (depth >= maxDepth) return { ...node, more: below.length };
    const children = waitedOnBy(dependent.objectKey, lookup, new Set([...path, dependent.objectKey]), depth + 1);
    return { ...node, children, more: Math.max(0, below.length - children.length) };
  });
}

function nodeOf(objectKey: string, description: string, edge: Pick<DependencyEdge, 'reason' | 'wave' | 'source'>, record: ObjectStatus | undefined): DependencyNode {
  const node: DependencyNode = { objectKey, description, reason: edge.reason, more: 0, children: [] };
  if (edge.wave !== undefined) node.wave = edge.wave;
  if (edge.source) node.source = edge.source;
  if (!record) return node;
  node.state = cellStateOf(record);
  const ready = findCondition(record.conditions, 'Ready');
  if (ready && ready.status !== 'True') node.why = `${ready.reason}: ${ready.message}`;
  return node;
}

/** dependentsIndex maps each cluster's objects to the records that wait on them (built once per cache version). */
export function dependentsIndex(records: Iterable<ObjectStatus>): Map<string, ObjectStatus[]> {
  const index = new Map<string, ObjectStatus[]>();
  for (const record of records) {
    for (const edge of record.dependencies?.edges ?? []) {
      const key = `${record.cluster}|${edge.objectKey}`;
      const list = index.get(key);
      if (list) list.push(record);
      else index.set(key, [record]);
    }
  }
  for (const list of index.values()) list.sort((a, b) => (a.objectKey < b.objectKey ? -1 : a.objectKey > b.objectKey ? 1 : 0));
  return index;
}
