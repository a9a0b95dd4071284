import { applyObject, getObject, type ClusterConnection } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { CliError } from '../cli-error';

/** The label on every object install made; its value is the release's name prefix (e.g. `tidemark`). */
export const installLabel = 'tidemark.dev/installed-by';
/** The annotation that proves an object is this install's: the inventory's random id. */
export const installIdAnnotation = 'tidemark.dev/install-id';

/** InventoryEntry names one object install made. */
export interface InventoryEntry {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * InstallInventory is what install made, kept in a ConfigMap in the install's namespace. Uninstall
 * deletes an object only when it is listed here and the live object carries the install label and
 * this id (and still has the uid it was read with): a list alone, or a label alone, is no proof.
 */
export interface InstallInventory {
  id: string;
  fullname: string;
  namespace: string;
  /** Whether install created the namespace (uninstall never deletes one it found). */
  createdNamespace: boolean;
  objects: InventoryEntry[];
}

const inventoryKey = 'inventory.json';
/** A bound on what is read back: an inventory of the chart's objects is a few kilobytes. */
const maxInventoryBytes = 512 * 1024;

export function inventoryName(fullname: string): string {
  return `${fullname}-install`;
}

export function entryOf(object: KubernetesManifest): InventoryEntry {
  return { apiVersion: object.apiVersion, kind: object.kind, ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}), name: object.metadata.name };
}

export function describeEntry(entry: InventoryEntry): string {
  return `${entry.kind} ${entry.namespace ? `${entry.namespace}/` : ''}${entry.name}`;
}

/** stamped marks an object as this install's: the label and the inventory's id. */
export function stamped(object: KubernetesManifest, inventory: Pick<InstallInventory, 'id' | 'fullname'>): KubernetesManifest {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { ...object.metadata.labels, [installLabel]: inventory.fullname },
      annotations: { ...object.metadata.annotations, [installIdAnnotation]: inventory.id },
    },
  };
}

/** ownedBy tells whether a live object proves it is this install's: the label and the id both match. */
export function ownedBy(live: KubernetesManifest, inventory: Pick<InstallInventory, 'id' | 'fullname'>): boolean {
  return live.metadata.labels?.[installLabel] === inventory.fullname && live.metadata.annotations?.[installIdAnnotation] === inventory.id;
}

/** readInventory reads the install's inventory; undefined when there is none. A damaged one is an error naming it. */
export async function readInventory(connection: ClusterConnection, namespace: string, fullname: string): Promise<InstallInventory | undefined> {
  const name = inventoryName(fullname);
  const live = await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
  if (!live) return undefined;
  const text = (live as { data?: Record<string, string> }).data?.[inventoryKey] ?? '';
  const where = `ConfigMap ${namespace}/${name} (key ${inventoryKey})`;
  if (text.length > maxInventoryBytes) throw new CliError('InventoryInvalid', `${where} is larger than ${maxInventoryBytes} bytes; it is not an inventory install wrote`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError('InventoryInvalid', `${where} is not JSON; it is not an inventory install wrote`);
  }
  return checkInventory(parsed, where, live);
}

function checkInventory(parsed: unknown, where: string, live: KubernetesManifest): InstallInventory {
  const value = parsed as Partial<InstallInventory> | null;
  const fine = typeof value === 'object' && value !== null && typeof value.id === 'string' && typeof value.fullname === 'string'
    && typeof value.namespace === 'string' && typeof value.createdNamespace === 'boolean' && Array.isArray(value.objects)
    && value.objects.every((entry) => typeof entry?.apiVersion === 'string' && typeof entry.kind === 'string' && typeof entry.name === 'string' && (entry.namespace === undefined || typeof entry.namespace === 'string'));
  if (!fine) throw new CliError('InventoryInvalid', `${where} does not hold an install inventory (id, fullname, namespace, createdNamespace, objects)`);
  const inventory = value as InstallInventory;
  // The ConfigMap itself must be install's, with the same id: a copied or hand-made one proves nothing.
  if (!ownedBy(live, inventory)) throw new CliError('InventoryInvalid', `${where} does not carry the label ${installLabel}=${inventory.fullname} and its own id; it is not an inventory install wrote`);
  return inventory;
}

/** writeInventory applies the inventory ConfigMap (stamped like every other object install made). */
export async function writeInventory(connection: ClusterConnection, inventory: InstallInventory): Promise<void> {
  const configMap: KubernetesManifest = {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: inventoryName(inventory.fullname), namespace: inventory.namespace },
    data: { [inventoryKey]: JSON.stringify(inventory) },
  } as KubernetesManifest;
  await applyObject(connection, stamped(configMap, inventory));
}

/** mergeEntries adds entries not listed yet, keeping the order: an object dropped from the chart stays listed, so uninstall still removes it. */
export function mergeEntries(known: readonly InventoryEntry[], added: readonly InventoryEntry[]): InventoryEntry[] {
  const key = (entry: InventoryEntry) => `${entry.apiVersion.split('/').length > 1 ? entry.apiVersion.split('/')[0] : ''}/${entry.kind}/${entry.namespace ?? ''}/${entry.name}`;
  const seen = new Set(known.map(key));
  return [...known, ...added.filter((entry) => !seen.has(key(entry)) && seen.add(key(entry)))];
}
