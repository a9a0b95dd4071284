import { ApiError, countCustomResources, deleteObject, foreignObjectsIn, getObject, type ClusterConnection, type ObjectIdentity } from '@tidemark/cluster';
import { groupOf, ownerAnnotation, type KubernetesManifest } from '@tidemark/contracts';
import type { Progress } from './apply-install';
import { describeEntry, installIdAnnotation, installLabel, inventoryName, ownedBy, readInventory, type InstallInventory, type InventoryEntry } from './inventory';

/** UninstallOptions: which install, and what else to remove. */
export interface UninstallOptions {
  namespace: string;
  fullname: string;
  /** Also delete every object Tidemark applied from Git, and CRDs that still have objects. @defaultValue false */
  prune: boolean;
  /** Keep the namespace even when install created it. @defaultValue false */
  keepNamespace: boolean;
}

/** UninstallResult lists what was deleted and what was kept, and why. */
export interface UninstallResult {
  deleted: string[];
  kept: string[];
}

/**
 * uninstall removes what install made, as its inventory lists it. Each delete needs proof: the
 * live object carries the install label and the inventory's id, and is deleted with its uid as a
 * precondition, so an object replaced meanwhile is not. Objects Tidemark applied from Git stay,
 * and so do the CRDs they need and a namespace that holds them, unless `prune`.
 */
export async function uninstall(connection: ClusterConnection, options: UninstallOptions, progress: Progress): Promise<UninstallResult | undefined> {
  const inventory = await readInventory(connection, options.namespace, options.fullname);
  if (!inventory) return undefined;
  const result: UninstallResult = { deleted: [], kept: [] };
  const crds = inventory.objects.filter((entry) => entry.kind === 'CustomResourceDefinition');
  const rest = inventory.objects.filter((entry) => entry.kind !== 'CustomResourceDefinition' && entry.kind !== 'Namespace').reverse();
  // The workloads go first, so no reconciler re-applies what is being removed.
  rest.sort((a, b) => Number(!isWorkload(a)) - Number(!isWorkload(b)));
  for (const entry of rest) await deleteOwned(connection, entry, inventory, result, progress);
  if (options.prune) await pruneApplied(connection, result, progress);
  for (const entry of crds) await deleteCrd(connection, entry, { inventory, prune: options.prune, result, progress });
  await removeNamespace(connection, inventory, options, result, progress);
  return result;
}

function isWorkload(entry: InventoryEntry): boolean {
  return ['Deployment', 'StatefulSet', 'DaemonSet'].includes(entry.kind);
}

function identityOf(entry: InventoryEntry): ObjectIdentity {
  return { group: groupOf(entry.apiVersion), kind: entry.kind, namespace: entry.namespace ?? '', name: entry.name };
}

async function deleteOwned(connection: ClusterConnection, entry: InventoryEntry, inventory: InstallInventory, result: UninstallResult, progress: Progress): Promise<void> {
  const live = await readLive(connection, entry);
  if (!live) return;
  if (!ownedBy(live, inventory)) {
    result.kept.push(`${describeEntry(entry)}: not install's (no ${installLabel}=${inventory.fullname} with this install's ${installIdAnnotation})`);
    progress(`  kept ${describeEntry(entry)}: it does not carry this install's label and id`);
    return;
  }
  // A Source install made goes without pruning what it applied (that is --prune's job): its finalizer is removed.
  if (entry.kind === 'Source' && live.metadata.finalizers?.length) await releaseSource(connection, live);
  const outcome = await deleteObject(connection, identityOf(entry), { uid: live.metadata.uid as string });
  if (outcome === 'deleted') {
    result.deleted.push(describeEntry(entry));
    progress(`  deleted ${describeEntry(entry)}`);
  }
}

async function readLive(connection: ClusterConnection, entry: InventoryEntry): Promise<KubernetesManifest | undefined> {
  try {
    return await getObject(connection, entry);
  } catch (error) {
    // A kind no longer served (its CRD went) has no objects left to delete.
    if (error instanceof ApiError && error.isNotFound) return undefined;
    if ((error as { code?: string }).code === 'KindNotServed') return undefined;
    throw error;
  }
}

async function releaseSource(connection: ClusterConnection, live: KubernetesManifest): Promise<void> {
  const resource = await connection.discovery.resourceFor(live.apiVersion, live.kind);
  await connection.client.request({
    method: 'PATCH',
    path: `/apis/${resource.group}/${resource.version}/namespaces/${live.metadata.namespace}/${resource.plural}/${live.metadata.name}`,
    body: { metadata: { annotations: { 'tidemark.dev/prune': 'false' }, finalizers: null } },
    contentType: 'application/merge-patch+json',
    what: `release Source ${live.metadata.namespace}/${live.metadata.name}`,
  });
}

async function deleteCrd(connection: ClusterConnection, entry: InventoryEntry, run: { inventory: InstallInventory; prune: boolean; result: UninstallResult; progress: Progress }): Promise<void> {
  const { inventory, prune, result, progress } = run;
  const live = await getObject(connection, entry);
  if (!live) return;
  if (!ownedBy(live, inventory)) {
    result.kept.push(`${describeEntry(entry)}: not install's`);
    return;
  }
  const instances = await countCustomResources(connection, live);
  if (instances.count > 0 && !prune) {
    const note = `${describeEntry(entry)}: ${instances.count}${instances.more ? '+' : ''} objects of it exist (${instances.examples.join(', ')}); deleting it would delete them (--prune does)`;
    result.kept.push(note);
    progress(`  kept ${note}`);
    return;
  }
  await deleteOwned(connection, entry, inventory, result, progress);
}

async function removeNamespace(connection: ClusterConnection, inventory: InstallInventory, options: UninstallOptions, result: UninstallResult, progress: Progress): Promise<void> {
  const entry = { apiVersion: 'v1', kind: 'Configmap', namespace: inventory.namespace, name: inventoryName(inventory.fullname) };
  const namespaceEntry = { apiVersion: 'v1', kind: 'Namespace', name: inventory.namespace };
  const keep = (why: string) => {
    result.kept.push(`Namespace ${inventory.namespace}: ${why}`);
    progress(`  kept Namespace ${inventory.namespace}: ${why}`);
  };
  const deleteInventory = async () => {
    const live = await getObject(connection, { ...entry, kind: 'ConfigMap' });
    if (live) await deleteObject(connection, { group: '', kind: 'ConfigMap', namespace: inventory.namespace, name: entry.name }, { uid: live.metadata.uid as string });
    result.deleted.push(`ConfigMap ${inventory.namespace}/${entry.name}`);
  };
  if (!inventory.createdNamespace) return (await deleteInventory(), keep('install did not create it'));
  if (options.keepNamespace) return (await deleteInventory(), keep('kept on request (--keep-namespace)'));
  // What is left that is not install's (nor owned by what was): without --prune, what Tidemark applied counts too.
  const ours = (item: Pick<KubernetesManifest, 'metadata'>) => ownedBy(item as KubernetesManifest, inventory) || ((item.metadata.ownerReferences as unknown[] | undefined)?.length ?? 0) > 0 || (options.prune && Boolean(item.metadata.annotations?.[ownerAnnotation])) || item.metadata.deletionTimestamp !== undefined;
  const contents = await foreignObjectsIn(connection, inventory.namespace, 5, ours);
  if (contents.foreign.length > 0 || contents.unlistable.length > 0) {
    await deleteInventory();
    return keep(contents.foreign.length > 0 ? `it holds objects install did not make (${contents.foreign.join(', ')})` : `you may not list ${contents.unlistable.join(', ')} there, so it may hold others' objects`);
  }
  await deleteOwned(connection, namespaceEntry, inventory, result, progress);
}

interface ResourceList { resources: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[] }

/**
 * pruneApplied deletes every object Tidemark applied from Git (the owner annotation, no
 * ownerReference), cluster-wide, after the reconciler is gone, each with its uid as a precondition.
 * A kind the user may not list is named, not skipped quietly.
 */
async function pruneApplied(connection: ClusterConnection, result: UninstallResult, progress: Progress): Promise<void> {
  const groups = await connection.client.request<{ groups?: { preferredVersion?: { groupVersion: string } }[] }>({ method: 'GET', path: '/apis', what: 'discover groups' });
  const versions = ['v1', ...(groups.groups ?? []).map((group) => group.preferredVersion?.groupVersion).filter((value): value is string => Boolean(value))];
  for (const groupVersion of versions) {
    const base = groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
    const list = await connection.client.request<ResourceList>({ method: 'GET', path: base, what: `discover ${groupVersion}` }).catch(() => ({ resources: [] }) as ResourceList);
    for (const resource of list.resources) {
      if (resource.name.includes('/') || !resource.verbs?.includes('list') || !resource.verbs.includes('delete')) continue;
      const items = await listedOrKept(connection, `${base}/${resource.name}`, resource.name, result);
      for (const item of items.filter(appliedFromGit)) await pruneOne(connection, { groupVersion, resource, item }, result, progress);
    }
  }
}

/** listedOrKept lists a kind; one the user may not list is named in what was kept, not skipped quietly. */
async function listedOrKept(connection: ClusterConnection, path: string, name: string, result: UninstallResult): Promise<KubernetesManifest[]> {
  try {
    return (await connection.client.request<{ items?: KubernetesManifest[] }>({ method: 'GET', path, what: `list ${name}` })).items ?? [];
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) result.kept.push(`${name}: you may not list them, so objects Tidemark applied there were not pruned`);
    return [];
  }
}

/** appliedFromGit: Tidemark's owner annotation and no ownerReference (what a controller made is its owner's to delete). */
function appliedFromGit(item: KubernetesManifest): boolean {
  return Boolean(item.metadata.annotations?.[ownerAnnotation]) && !(item.metadata.ownerReferences as unknown[] | undefined)?.length;
}

async function pruneOne(connection: ClusterConnection, found: { groupVersion: string; resource: ResourceList['resources'][number]; item: KubernetesManifest }, result: UninstallResult, progress: Progress): Promise<void> {
  const { groupVersion, resource, item } = found;
  const entry = { apiVersion: groupVersion, kind: resource.kind, ...(resource.namespaced ? { namespace: item.metadata.namespace } : {}), name: item.metadata.name };
  if (resource.kind === 'Source' && item.metadata.finalizers?.length) await releaseSource(connection, { ...item, apiVersion: groupVersion, kind: resource.kind });
  if ((await deleteObject(connection, identityOf(entry), { uid: item.metadata.uid as string })) === 'deleted') {
    result.deleted.push(`${describeEntry(entry)} (applied by Tidemark)`);
    progress(`  pruned ${describeEntry(entry)}`);
  }
}
