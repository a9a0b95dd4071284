import type { AppliedResource, LiveChild, ObjectStatus, ResourceHealth } from '@tidemark/contracts';
import { cellStateOf, isDrifted } from './cell-state';

/** Sync says how an object stands against Git: what the last apply did, or drift. */
export type TreeSync = 'Synced' | 'Drifted' | 'Created' | 'Configured' | 'Skipped' | 'Live';

/** TreeNode is one box of the resource tree. */
export interface TreeNode {
  id: string;
  kind: string;
  namespace: string;
  name: string;
  health: ResourceHealth;
  sync: TreeSync;
  message?: string;
  children: TreeNode[];
}

/** healthOfRecord maps a record's one-word state to a node's health. */
function healthOfRecord(status: ObjectStatus): ResourceHealth {
  const state = cellStateOf(status);
  if (state === 'Ready') return 'Ready';
  if (state === 'Reconciling' || state === 'Waiting') return 'Progressing';
  if (state === 'Stalled' || state === 'Failed') return 'Failed';
  return 'Unknown';
}

function describeObject(kind: string, namespace: string, name: string): string {
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

function syncOf(resource: AppliedResource, drifted: ReadonlySet<string>): TreeSync {
  if (drifted.has(describeObject(resource.kind, resource.namespace, resource.name))) return 'Drifted';
  if (resource.action === 'created') return 'Created';
  if (resource.action === 'configured') return 'Configured';
  if (resource.action === 'skipped') return 'Skipped';
  return 'Synced';
}

/** childNodes hangs Pods under their ReplicaSet, and the rest directly under the applied object. */
function childNodes(ownerUid: string, children: readonly LiveChild[], idPrefix: string): TreeNode[] {
  const toNode = (child: LiveChild, index: number): TreeNode => ({
    id: `${idPrefix}-${index}`, kind: child.kind, namespace: child.namespace, name: child.name, health: child.health, sync: 'Live',
    ...(child.message ? { message: child.message } : {}), children: [],
  });
  const nodes = children.map(toNode);
  const byUid = new Map(children.map((child, index) => [child.uid, nodes[index]!]));
  const top: TreeNode[] = [];
  children.forEach((child, index) => {
    const parent = child.ownerUid === ownerUid ? undefined : byUid.get(child.ownerUid);
    if (parent) parent.children.push(nodes[index]!);
    else top.push(nodes[index]!);
  });
  return top;
}

/**
 * buildResourceTree draws a Git object with what it applied and, under each applied object, the
 * ReplicaSets and Pods the cluster's controllers made for it. A plain manifest is its own root.
 */
export function buildResourceTree(status: ObjectStatus, liveChildren: ReadonlyMap<string, readonly LiveChild[]>): TreeNode {
  const drifted = new Set((status.drift ?? []).map((item) => item.object ?? describeObject(status.kind, status.namespace, status.name)));
  const resources = status.resources ?? [];
  const self = resources.length === 1 && resources[0]!.kind === status.kind && resources[0]!.name === status.name ? resources[0] : undefined;
  const root: TreeNode = {
    id: 'node-0', kind: status.kind, namespace: status.namespace, name: status.name, health: healthOfRecord(status),
    sync: isDrifted(status) ? 'Drifted' : 'Synced', children: [],
  };
  const message = status.conditions.find((condition) => condition.type === 'Ready')?.message;
  if (message) root.message = message;
  if (self) {
    root.children = self.uid ? childNodes(self.uid, liveChildren.get(self.uid) ?? [], 'node-0') : [];
    return root;
  }
  root.children = resources.map((resource, index) => {
    const id = `node-${index + 1}`;
    return {
      id, kind: resource.kind, namespace: resource.namespace, name: resource.name, health: resource.health, sync: syncOf(resource, drifted),
      ...(resource.message ? { message: resource.message } : {}),
      children: resource.uid ? childNodes(resource.uid, liveChildren.get(resource.uid) ?? [], id) : [],
    };
  });
  return root;
}

/** flattenTree lists every node with its depth and parent, in drawing order. */
export function flattenTree(root: TreeNode): Array<{ node: TreeNode; depth: number; parent?: TreeNode }> {
  const out: Array<{ node: TreeNode; depth: number; parent?: TreeNode }> = [];
  const walk = (node: TreeNode, depth: number, parent?: TreeNode) => {
    out.push(parent ? { node, depth, parent } : { node, depth });
    for (const child of node.children) walk(child, depth + 1, node);
  };
  walk(root, 0);
  return out;
}

/** ownerUidsOf lists the uids whose live children the tree needs. */
export function ownerUidsOf(status: ObjectStatus): string[] {
  return (status.resources ?? []).map((resource) => resource.uid).filter((uid): uid is string => typeof uid === 'string');
}
