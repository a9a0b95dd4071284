/**
 * TreeChange is the message published on `RecordKeys.treeChanges` after the live children
 * (ReplicaSets, Pods) of some owners were rewritten, so an open resource tree redraws without
 * waiting for the owner's next reconcile. `replaced` when every owner of the cluster was
 * rewritten at once (a fresh list); `ownerUids` is then empty.
 */
export interface TreeChange {
  cluster: string;
  ownerUids: string[];
  replaced: boolean;
}

/** parseTreeChange reads a message off the channel; undefined for anything else. */
export function parseTreeChange(message: string): TreeChange | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  const change = value as Partial<TreeChange> | null;
  if (!change || typeof change.cluster !== 'string' || !Array.isArray(change.ownerUids)) return undefined;
  const ownerUids = change.ownerUids.filter((uid): uid is string => typeof uid === 'string');
  return { cluster: change.cluster, ownerUids, replaced: change.replaced === true };
}
