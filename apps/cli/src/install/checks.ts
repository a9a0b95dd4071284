import { ApiError, getObject, listObjects, mayDo, type ClusterConnection } from '@tidemark/cluster';
import { messageOf, type KubernetesManifest } from '@tidemark/contracts';
import { clusterVersion, foreignCrdManager } from './apply-install';
import type { InstallPlan } from './install-manifests';
import { describeEntry, inventoryName, readInventory, type InstallInventory } from './inventory';
import { workloadStates } from './readiness';

/** CheckResult is one check: what it looked at, and when it failed, what to do next. */
export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do about a failure, in a sentence. */
  next?: string;
}

/** The oldest Kubernetes the chart supports (Chart.yaml kubeVersion). */
const minimumVersion = [1, 29];

/**
 * preInstallChecks checks a cluster before install: its version, every right install needs (one
 * SelfSubjectAccessReview per verb and kind, as the kubeconfig's user), and CRDs of the same
 * names that someone else installed.
 */
export async function preInstallChecks(connection: ClusterConnection, plan: InstallPlan): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const version = await clusterVersion(connection);
  const [major = 0, minor = 0] = (version ?? '').split('.').map(Number);
  const supported = version === undefined || major > minimumVersion[0]! || (major === minimumVersion[0] && minor >= minimumVersion[1]!);
  const detail = version === undefined ? `not stamped (a development build of the API server); ${minimumVersion.join('.')} or newer is needed` : `${version} (${minimumVersion.join('.')} or newer needed)`;
  results.push({ name: 'Kubernetes version', ok: supported, detail, ...(supported ? {} : { next: 'upgrade the cluster, or install into one at 1.29 or newer' }) });
  const missing = await missingRights(connection, plan);
  results.push(missing.length === 0
    ? { name: 'rights', ok: true, detail: 'the kubeconfig\'s user may create and patch everything install applies' }
    : { name: 'rights', ok: false, detail: `missing: ${missing.join('; ')}`, next: 'ask a cluster admin to grant these rights, or run install as a user who has them (install applies ClusterRoles, so it needs cluster-admin or the rights it grants)' });
  for (const crd of plan.crds) {
    const live = await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name });
    const manager = live ? foreignCrdManager(live) : undefined;
    results.push(manager
      ? { name: `CRD ${crd.metadata.name}`, ok: false, detail: `exists, installed by "${manager}"`, next: `remove it (kubectl delete crd ${crd.metadata.name} deletes its objects too) or hand it to Tidemark: kubectl apply --server-side --force-conflicts --field-manager=tidemark-crds -f deploy/crds/${crd.metadata.name}.yaml` }
      : { name: `CRD ${crd.metadata.name}`, ok: true, detail: live ? 'exists, Tidemark\'s' : 'not installed yet' });
  }
  return results;
}

/** missingRights lists each right install needs and the kubeconfig's user lacks, e.g. "create clusterroles.rbac.authorization.k8s.io (cluster-wide)". */
async function missingRights(connection: ClusterConnection, plan: InstallPlan): Promise<string[]> {
  const namespace = plan.settings.namespace;
  const secrets = plan.secrets.map((secret) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: secret.name, namespace } }) as KubernetesManifest);
  const inventory = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: inventoryName(plan.fullname), namespace } } as KubernetesManifest;
  const asked = new Set<string>();
  const missing: string[] = [];
  for (const object of [plan.namespace, ...plan.crds, ...secrets, inventory, ...plan.objects]) {
    const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
    const scope = resource.namespaced ? object.metadata.namespace ?? namespace : undefined;
    for (const verb of ['get', 'create', 'patch']) {
      const key = `${verb} ${resource.group}/${resource.plural} ${scope ?? ''}`;
      if (asked.has(key)) continue;
      asked.add(key);
      if (!(await mayDo(connection, { verb, resource, namespace: scope, name: object.metadata.name }))) {
        missing.push(`${verb} ${resource.group ? `${resource.plural}.${resource.group}` : resource.plural} (${scope ? `namespace ${scope}` : 'cluster-wide'})`);
      }
    }
  }
  return missing;
}

/**
 * installChecks checks an install: the inventory, CRDs Established, workloads ready, the
 * conversion webhook (a server-side dry-run of a WebApp at v1alpha1 makes the API server call it),
 * Redis (its StatefulSet's readiness, or for a Redis of the user's, the reconciler's readiness,
 * whose /readyz asks Redis), and each Source object's Ready condition.
 */
export async function installChecks(connection: ClusterConnection, namespace: string, fullname: string): Promise<CheckResult[]> {
  const inventory = await readInventory(connection, namespace, fullname).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 403) return undefined;
    throw error;
  });
  if (!inventory) {
    return [{ name: 'install', ok: false, detail: `no install inventory ${namespace}/${inventoryName(fullname)}`, next: `run tidemark install (or pass the --namespace and --release it was installed with)` }];
  }
  const results: CheckResult[] = [{ name: 'install', ok: true, detail: `${inventory.objects.length} objects in the inventory of ${namespace}/${inventoryName(fullname)}` }];
  results.push(...(await crdChecks(connection, inventory)));
  const states = await workloadStates(connection, inventory.objects);
  for (const state of states) {
    results.push({ name: describeEntry(state.entry), ok: state.ready, detail: state.message, ...(state.ready ? {} : { next: `kubectl -n ${namespace} describe ${state.entry.kind.toLowerCase()} ${state.entry.name}, and its pods' events and logs` }) });
  }
  results.push(await conversionCheck(connection, namespace, fullname));
  results.push(redisCheck(inventory, states, fullname));
  results.push(...(await sourceChecks(connection, namespace)));
  return results;
}

async function crdChecks(connection: ClusterConnection, inventory: InstallInventory): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const entry of inventory.objects.filter((object) => object.kind === 'CustomResourceDefinition')) {
    const live = await getObject(connection, entry);
    const conditions = (live?.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)?.conditions ?? [];
    const established = conditions.find((condition) => condition.type === 'Established');
    const ok = established?.status === 'True';
    results.push({ name: `CRD ${entry.name}`, ok, detail: !live ? 'missing' : ok ? 'Established' : `not Established${established?.message ? `: ${established.message}` : ''}`, ...(ok ? {} : { next: 'run tidemark install again; if it stays, kubectl describe crd ' + entry.name }) });
  }
  return results;
}

async function conversionCheck(connection: ClusterConnection, namespace: string, fullname: string): Promise<CheckResult> {
  const name = 'conversion webhook';
  const probe = { apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'tidemark-check-conversion', namespace }, spec: { image: 'registry.invalid/check:1', port: 8080 } };
  try {
    const resource = await connection.discovery.resourceFor(probe.apiVersion, probe.kind);
    await connection.client.request({ method: 'POST', path: `/apis/tidemark.dev/v1alpha1/namespaces/${namespace}/${resource.plural}`, query: { dryRun: 'All' }, body: probe, what: `dry-run create a v1alpha1 WebApp in ${namespace}` });
    return { name, ok: true, detail: 'the API server converted a v1alpha1 WebApp through it (server-side dry-run)' };
  } catch (error) {
    const message = messageOf(error);
    if (/conversion webhook/i.test(message)) {
      return { name, ok: false, detail: `the API server cannot call it: ${message.slice(0, 300)}`, next: `the reconciler serves it and fills in the CRD's CA when it starts: check kubectl -n ${namespace} logs deploy/${fullname}-reconciler, and that networkPolicy.conversionWebhookFrom admits the API servers` };
    }
    // Any other refusal (validation, admission) came after the conversion, so the webhook answered.
    if (error instanceof ApiError && (error.status === 422 || error.status === 400)) return { name, ok: true, detail: 'the API server reached it (the dry-run failed later, on validation)' };
    return { name, ok: false, detail: `could not probe it: ${message.slice(0, 300)}`, next: 'check that the WebApp CRD is installed and that you may create WebApps in the namespace' };
  }
}

function redisCheck(inventory: InstallInventory, states: Awaited<ReturnType<typeof workloadStates>>, fullname: string): CheckResult {
  const bundled = states.find((state) => state.entry.kind === 'StatefulSet' && state.entry.name === `${fullname}-redis`);
  if (bundled) {
    return { name: 'Redis', ok: bundled.ready, detail: bundled.ready ? 'the bundled Redis is ready (its probe pings it)' : bundled.message, ...(bundled.ready ? {} : { next: `kubectl -n ${inventory.namespace} describe statefulset ${fullname}-redis: a PersistentVolumeClaim needs a StorageClass (redis.storage.storageClassName)` }) };
  }
  const reconciler = states.find((state) => state.entry.kind === 'Deployment' && state.entry.name === `${fullname}-reconciler`);
  const ok = reconciler?.ready ?? false;
  return { name: 'Redis', ok, detail: ok ? 'your Redis answers the reconciler (its readiness probe, /readyz, asks Redis)' : 'the reconciler is not ready, so Redis may not answer it', ...(ok ? {} : { next: `kubectl -n ${inventory.namespace} logs deploy/${fullname}-reconciler; check the Redis URL given to install and that the NetworkPolicy lets the pods reach it` }) };
}

async function sourceChecks(connection: ClusterConnection, namespace: string): Promise<CheckResult[]> {
  let sources: KubernetesManifest[];
  try {
    sources = await listObjects(connection, 'tidemark.dev/v1alpha1', 'Source', '').catch(async (error: unknown) => {
      if (error instanceof ApiError && error.status === 403) return listObjects(connection, 'tidemark.dev/v1alpha1', 'Source', namespace);
      throw error;
    });
  } catch (error) {
    return [{ name: 'sources', ok: false, detail: `cannot list Source objects: ${messageOf(error).slice(0, 200)}`, next: 'check that the Source CRD is installed and that you may list Sources' }];
  }
  if (sources.length === 0) return [{ name: 'sources', ok: true, detail: 'no Source objects (sources in tidemark.yaml show in `tidemark status`)' }];
  return sources.map((source) => {
    const conditions = (source.status as { conditions?: { type: string; status: string; reason?: string; message?: string }[] } | undefined)?.conditions ?? [];
    const ready = conditions.find((condition) => condition.type === 'Ready');
    const ok = ready?.status === 'True';
    const where = `Source ${source.metadata.namespace}/${source.metadata.name}`;
    return { name: where, ok, detail: ok ? `fetched: ${ready?.message ?? 'Ready'}` : ready ? `${ready.reason ?? 'not Ready'}: ${ready.message ?? ''}` : 'not read yet', ...(ok ? {} : { next: `kubectl -n ${source.metadata.namespace} describe source ${source.metadata.name}; docs/sources.md lists each reason` }) };
  });
}


/** printChecks writes one line per check, and the next step under each failure. */
export function printChecks(results: readonly CheckResult[], write: (text: string) => void): boolean {
  for (const result of results) {
    write(`${result.ok ? '✓' : '✗'} ${result.name}: ${result.detail}\n`);
    if (!result.ok && result.next) write(`    next: ${result.next}\n`);
  }
  const failed = results.filter((result) => !result.ok).length;
  write(failed === 0 ? 'all checks passed\n' : `${failed} of ${results.length} checks failed\n`);
  return failed === 0;
}
