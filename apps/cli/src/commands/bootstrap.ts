import { getObject, type ClusterConnection } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { stringify } from 'yaml';
import { CliError, ExitCode } from '../cli-error';
import type { Environment } from '../config';
import type { Output } from '../output';
import { applyInstall, clusterVersion, connectCluster, type ClusterTarget, type Progress } from '../install/apply-install';
import { checkBranch, checkGitUrl, checkRepoPath, gitCredentialsOf, writeAndPush } from '../install/git-repository';
import { planInstall, type InstallPlan, type InstallSettings } from '../install/install-manifests';
import { installLabel } from '../install/inventory';
import { waitUntilReady } from '../install/readiness';
import { fullnameOf } from './check';
import { redisUrlOf, type InstallOptions } from './install';

/** BootstrapOptions: the repository, branch and folder, plus install's options. */
export interface BootstrapOptions extends Omit<InstallOptions, 'export'>, ClusterTarget {
  url: string;
  branch: string;
  path: string;
  /** How often the Source polls, in seconds. @defaultValue 60 */
  intervalSeconds: number;
  /** A JSON file {"username", "password"}; else TIDEMARK_GIT_USERNAME and TIDEMARK_GIT_PASSWORD or TIDEMARK_GIT_TOKEN. */
  credentialsFile?: string;
}

/**
 * bootstrapGitCommand makes Tidemark manage itself from Git, as `flux bootstrap` does: it commits
 * the install's manifests and a Source for the same repository and folder to the branch, pushes,
 * installs the same manifests, and waits until the Source has read that commit. From then on an
 * upgrade is a commit. A second run with the same options commits nothing, changes nothing and
 * says so. The Source acts as a ServiceAccount of its own bound to cluster-admin: managing
 * Tidemark's own ClusterRoles and CRDs needs it, and only this Source uses it.
 */
export async function bootstrapGitCommand(output: Output, env: Environment, options: BootstrapOptions): Promise<ExitCode> {
  const url = checkGitUrl(options.url);
  const branch = checkBranch(options.branch);
  const path = checkRepoPath(options.path);
  const credentials = await gitCredentialsOf(options.credentialsFile, env);
  const progress: Progress = (line) => output.write(`${line}\n`);
  const fullname = fullnameOf(options.release);
  const identity = { namespace: options.namespace, name: `${fullname}-self` };
  const connection = connectCluster(env, options);
  try {
    const version = await clusterVersion(connection);
    const redisUrl = redisUrlOf(options.redisUrlFile, env);
    const settings: InstallSettings = {
      ...options, ...(version ? { kubeVersion: version } : {}), ...(redisUrl ? { redisUrl } : {}),
      commandValues: {
        config: { sources: [] },
        sourceObjects: { enabled: true },
        tenants: [{ name: 'self', serviceAccount: identity, createServiceAccount: true, namespaces: [] }],
      },
    };
    const plan = await planInstall(settings, env);
    const selfObjects = bootstrapObjects(plan, { url, branch, path, intervalSeconds: options.intervalSeconds, identity, credentials: credentials !== undefined });
    const files = {
      [`${path}/${fullname}/components.yaml`]: yamlFile('Tidemark itself, from `tidemark bootstrap git`. An upgrade is a commit here (or a rerun of bootstrap).', plan.objects.concat(selfObjects.binding)),
      [`${path}/${fullname}/source.yaml`]: yamlFile(`The Source that reads ${path} of this repository, Tidemark included.`, [selfObjects.source]),
    };
    progress(`writing ${Object.keys(files).join(' and ')} to ${url} (branch ${branch})`);
    const commit = await writeAndPush({ url, branch, ...(credentials ? { credentials } : {}) }, files, `tidemark: bootstrap ${path}`, env);
    progress(commit.changed ? `pushed commit ${commit.revision.slice(0, 12)}` : `the branch already holds these manifests at ${commit.revision.slice(0, 12)}: nothing committed`);
    const withSelf: InstallPlan = {
      ...plan,
      objects: [...plan.objects, selfObjects.binding, selfObjects.source],
      secrets: [...plan.secrets, ...(credentials ? [{ name: `${fullname}-git`, generated: {}, given: { username: credentials.username, password: credentials.password }, labels: { 'tidemark.dev/source': fullname } }] : [])],
    };
    const result = await applyInstall(connection, withSelf, progress);
    const changed = result.changes.filter((change) => change.action !== 'unchanged').length + result.secretsMade.length;
    if (!options.wait) return ExitCode.Ok;
    progress(`waiting up to ${options.timeoutSeconds} s for the workloads, then for Source ${options.namespace}/${fullname} to read ${commit.revision.slice(0, 12)}…`);
    const deadline = Date.now() + options.timeoutSeconds * 1_000;
    const states = await waitUntilReady(connection, result.inventory.objects, options.timeoutSeconds * 1_000, progress);
    if (states.some((state) => !state.ready)) throw new CliError('NotReady', `not ready after ${options.timeoutSeconds} s; run tidemark check for what to do next`);
    await waitForSource(connection, { namespace: options.namespace, name: fullname }, commit.revision, deadline, progress);
    progress(!commit.changed && changed === 0 ? 'nothing changed: Git and the cluster already hold this bootstrap' : `Tidemark reconciles itself from ${url} (${branch}, ${path})`);
    return ExitCode.Ok;
  } finally {
    connection.close();
  }
}

interface SelfSpec {
  url: string;
  branch: string;
  path: string;
  intervalSeconds: number;
  identity: { namespace: string; name: string };
  credentials: boolean;
}

function bootstrapObjects(plan: InstallPlan, spec: SelfSpec): { binding: KubernetesManifest; source: KubernetesManifest } {
  const labels = { [installLabel]: plan.fullname, 'app.kubernetes.io/part-of': 'tidemark' };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
    metadata: { name: `${plan.fullname}-self`, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', namespace: spec.identity.namespace, name: spec.identity.name }],
  } as unknown as KubernetesManifest;
  const source = {
    apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source',
    metadata: { name: plan.fullname, namespace: plan.settings.namespace, labels },
    spec: {
      url: spec.url, ref: { branch: spec.branch }, path: spec.path, intervalMs: spec.intervalSeconds * 1_000,
      serviceAccount: spec.identity,
      ...(spec.credentials ? { secretRef: { name: `${plan.fullname}-git` } } : {}),
    },
  } as unknown as KubernetesManifest;
  return { binding, source };
}

function yamlFile(comment: string, objects: readonly KubernetesManifest[]): string {
  return `# ${comment}\n${objects.map((object) => `---\n${stringify(object, { lineWidth: 0 })}`).join('')}`;
}

interface SourceStatus {
  lastFetchedRevision?: string;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

/** waitForSource polls the Source until it is Ready at the revision, printing its state when it changes. */
async function waitForSource(connection: ClusterConnection, name: { namespace: string; name: string }, revision: string, deadline: number, progress: Progress): Promise<void> {
  let shown = '';
  for (;;) {
    const live = await getObject(connection, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', ...name });
    const status = (live?.status ?? {}) as SourceStatus;
    const ready = status.conditions?.find((condition) => condition.type === 'Ready');
    const line = `  Source ${name.namespace}/${name.name}: ${ready ? `${ready.status === 'True' ? 'Ready' : ready.reason ?? 'not Ready'}${ready.message ? `, ${ready.message}` : ''}` : 'not read yet'}${status.lastFetchedRevision ? ` (revision ${status.lastFetchedRevision.slice(0, 12)})` : ''}`;
    if (line !== shown) progress((shown = line));
    if (ready?.status === 'True' && status.lastFetchedRevision === revision) return;
    if (Date.now() >= deadline) throw new CliError('NotReady', `Source ${name.namespace}/${name.name} did not read ${revision.slice(0, 12)} in time; kubectl -n ${name.namespace} describe source ${name.name}, and the reconciler's logs`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
