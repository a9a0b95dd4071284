import { randomUUID } from 'node:crypto';
import { applyChangeSet, ApiError, ClusterConnection, getObject, type ChangeSetEntry } from '@tidemark/cluster';
import { messageOf, type KubernetesManifest } from '@tidemark/contracts';
import { CliError } from '../cli-error';
import type { Environment } from '../config';
import { loadKubeconfig, withContext } from '../kubeconfig';
import { crdManager, installManager, type InstallPlan, type SecretPlan } from './install-manifests';
import { entryOf, mergeEntries, ownedBy, readInventory, stamped, writeInventory, type InstallInventory } from './inventory';

/** ClusterTarget is the cluster a command works on: the kubeconfig and its context. */
export interface ClusterTarget {
  kubeconfig?: string;
  context?: string;
}

/** connectCluster connects to the kubeconfig's cluster as install's field manager. */
export function connectCluster(env: Environment, target: ClusterTarget): ClusterConnection {
  const config = withContext(loadKubeconfig(target.kubeconfig, env), target.context);
  return ClusterConnection.connect({ cluster: config.getCurrentContext() || 'cluster', kubeconfig: config, fieldManager: installManager });
}

/** clusterVersion is the API server's version, e.g. `1.31.2`. */
export async function clusterVersion(connection: ClusterConnection): Promise<string | undefined> {
  const version = await connection.client.request<{ gitVersion?: string; major?: string; minor?: string }>({ method: 'GET', path: '/version', what: `read the version of ${connection.name}` });
  const git = (version.gitVersion ?? '').replace(/^v/, '').replace(/[-+].*$/, '');
  if (git && !git.startsWith('0.')) return git;
  // A server built without version stamps (v0.0.0-master) may still give major and minor.
  const major = (version.major ?? '').replace(/\D/g, '');
  const minor = (version.minor ?? '').replace(/\D/g, '');
  return major && minor && major !== '0' ? `${major}.${minor}.0` : undefined;
}

/** Progress receives one line per step, for people. */
export type Progress = (line: string) => void;

/** InstallResult is what an install did: its inventory and each object's change. */
export interface InstallResult {
  inventory: InstallInventory;
  changes: ChangeSetEntry[];
  secretsMade: string[];
}

/**
 * applyInstall applies a plan: the namespace (only when it is missing or install's), the Secrets the
 * pods need (made only when missing, never printed), the CRDs as the reconciler's CRD manager (so it
 * keeps upgrading them, and a conversion webhook it filled in is kept), then the chart's objects by
 * server-side apply. The inventory is written before anything else is, listing all of it, so a
 * failed install can still be uninstalled. Nothing is deleted.
 */
export async function applyInstall(connection: ClusterConnection, plan: InstallPlan, progress: Progress): Promise<InstallResult> {
  const namespace = plan.settings.namespace;
  const liveNamespace = await getObject(connection, { apiVersion: 'v1', kind: 'Namespace', name: namespace });
  const known = liveNamespace ? await readInventory(connection, namespace, plan.fullname) : undefined;
  const id = known?.id ?? randomUUID();
  const ownNamespace = !liveNamespace || (known?.createdNamespace ?? false);
  const crds = await crdsToApply(connection, plan.crds);
  const inventory: InstallInventory = {
    id, fullname: plan.fullname, namespace, createdNamespace: ownNamespace,
    objects: mergeEntries(known?.objects ?? [], [...(ownNamespace ? [entryOf(plan.namespace)] : []), ...plan.crds.map(entryOf), ...plan.objects.map(entryOf)]),
  };
  const changes: ChangeSetEntry[] = [];
  if (ownNamespace) changes.push(...(await applyChangeSet(connection, [stamped(plan.namespace, inventory)])));
  else progress(`namespace ${namespace} exists and is not install's: left as it is (label it pod-security.kubernetes.io/enforce=restricted yourself)`);
  const secretsMade = await makeSecrets(connection, plan, inventory);
  await writeInventory(connection, inventory);
  progress(`inventory ConfigMap ${namespace}/${plan.fullname}-install lists ${inventory.objects.length} objects`);
  const crdChanges = await applyChangeSet(connection.asManager(crdManager), crds);
  // The label and id are install's own fields: the reconciler re-applies the CRDs as crdManager and would drop them.
  await applyChangeSet(connection, crds.map((crd) => stamped({ apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: crd.metadata.name } }, inventory)));
  progress(`CRDs: ${summary(crdChanges)}; all Established`);
  const objectChanges = await applyChangeSet(connection, plan.objects.map((object) => stamped(object, inventory)));
  progress(`objects: ${summary(objectChanges)}`);
  for (const change of objectChanges.filter((entry) => entry.action !== 'unchanged')) progress(`  ${change.action} ${change.subject}`);
  return { inventory, changes: [...changes, ...crdChanges, ...objectChanges], secretsMade };
}

function summary(changes: readonly ChangeSetEntry[]): string {
  const counts = new Map<string, number>();
  for (const change of changes) counts.set(change.action, (counts.get(change.action) ?? 0) + 1);
  return [...counts].map(([action, count]) => `${count} ${action}`).join(', ') || 'none';
}

/**
 * crdsToApply refuses a CRD someone else installed (Helm, kubectl, another tool: `check --pre`
 * names it first), and keeps the conversion block of one the reconciler filled in (its CA): the
 * same field manager applying without it would remove it.
 */
async function crdsToApply(connection: ClusterConnection, crds: readonly KubernetesManifest[]): Promise<KubernetesManifest[]> {
  const result: KubernetesManifest[] = [];
  for (const crd of crds) {
    const live = await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name });
    const conflict = live ? foreignCrdManager(live) : undefined;
    if (conflict) throw new CliError('CrdConflict', `CRD ${crd.metadata.name} exists and was installed by "${conflict}", not by Tidemark; remove it or let Tidemark own it (kubectl apply --server-side --force-conflicts --field-manager=${crdManager} -k deploy/crds), then run install again`);
    const liveConversion = (live?.spec as { conversion?: { webhook?: { clientConfig?: { caBundle?: string } } } } | undefined)?.conversion;
    if (liveConversion?.webhook?.clientConfig?.caBundle) result.push({ ...crd, spec: { ...(crd.spec as object), conversion: liveConversion } });
    else result.push(crd);
  }
  return result;
}

/** foreignCrdManager names who else installed a CRD, or undefined when Tidemark did (or nobody holds it). */
export function foreignCrdManager(live: KubernetesManifest): string | undefined {
  const managers = (live.metadata.managedFields as { manager?: string; operation?: string }[] | undefined) ?? [];
  const ours = new Set([crdManager, installManager, 'tidemark']);
  if (managers.some((entry) => entry.manager && ours.has(entry.manager))) return undefined;
  return managers.find((entry) => entry.manager && !entry.manager.startsWith('kube-apiserver'))?.manager;
}

/**
 * makeSecrets writes the Secrets the pods need: a missing one is made (listed in the inventory);
 * in one install made before, missing keys are added and given keys (a user's Redis password) set;
 * one made by someone else is left alone when it holds the keys, and refused when it does not.
 */
async function makeSecrets(connection: ClusterConnection, plan: InstallPlan, inventory: InstallInventory): Promise<string[]> {
  const made: string[] = [];
  for (const secret of plan.secrets) {
    const target = { apiVersion: 'v1', kind: 'Secret', namespace: inventory.namespace, name: secret.name };
    const live = await getObject(connection, target);
    const data = (live as { data?: Record<string, string> } | undefined)?.data ?? {};
    if (live && !ownedBy(live, inventory)) {
      const missing = [...Object.keys(secret.generated), ...Object.keys(secret.given)].filter((key) => data[key] === undefined);
      if (missing.length > 0) throw new CliError('SecretIncomplete', `Secret ${inventory.namespace}/${secret.name} exists but has no key ${missing.join(', ')}; add it, or delete the Secret and install makes it`);
      continue;
    }
    const values = valuesToWrite(secret, data);
    if (Object.keys(values).length === 0) continue;
    const manifest = { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: secret.name, namespace: inventory.namespace, ...(secret.labels ? { labels: secret.labels } : {}) }, stringData: values } as unknown as KubernetesManifest;
    try {
      await applyChangeSet(connection, [stamped(manifest, inventory)]);
    } catch (error) {
      // The API server's message may quote the object; name the Secret and its keys only.
      throw new CliError('SecretNotWritten', `cannot write Secret ${inventory.namespace}/${secret.name}: ${error instanceof ApiError ? error.status : ''} ${messageOf(error).split(':')[0]}`.trim());
    }
    if (!live) made.push(secret.name);
    inventory.objects = mergeEntries(inventory.objects, [entryOf(manifest)]);
  }
  return made;
}

function valuesToWrite(secret: SecretPlan, data: Record<string, string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, generate] of Object.entries(secret.generated)) if (data[key] === undefined) values[key] = generate();
  for (const [key, value] of Object.entries(secret.given)) if (data[key] !== Buffer.from(value).toString('base64')) values[key] = value;
  if (Object.keys(values).length === 0) return {};
  // Server-side apply owns what it is sent: keep the keys already there, so none is dropped.
  for (const [key, value] of Object.entries(data)) if (values[key] === undefined) values[key] = Buffer.from(value, 'base64').toString('utf8');
  return values;
}
