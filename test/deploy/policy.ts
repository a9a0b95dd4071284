// Static policies for what deploy/ renders. Each check returns sentences naming the object
// and the rule it breaks, so a failing test says what to fix.
import type { Manifest } from './render';

type SecurityContext = {
  runAsNonRoot?: boolean; runAsUser?: number; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] }; seccompProfile?: { type?: string };
};
type Probe = Record<string, unknown>;
/** Container is the part of a container spec these checks read. */
export interface Container {
  name: string;
  securityContext?: SecurityContext;
  livenessProbe?: Probe; readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  args?: string[];
}
/** PodSpec is the part of a pod spec these checks read. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: SecurityContext;
  volumes?: { name: string; emptyDir?: unknown; persistentVolumeClaim?: unknown; configMap?: { name: string } }[];
  automountServiceAccountToken?: boolean;
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean; hostPID?: boolean; hostIPC?: boolean;
}
interface Rule { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] }

const workloadKinds = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);

/** podSpecOf returns a workload's pod spec, or undefined for other kinds. */
export function podSpecOf(object: Manifest): PodSpec | undefined {
  if (!workloadKinds.has(object.kind)) return undefined;
  const spec = object.spec as { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } };
  return spec.template?.spec ?? spec.jobTemplate?.spec.template.spec;
}

function name(object: Manifest): string {
  return `${object.kind}/${object.metadata.name}`;
}

/** wildcardRules finds '*' in any RBAC rule. */
export function wildcardRules(objects: readonly Manifest[]): string[] {
  const found: string[] = [];
  for (const object of objects.filter((candidate) => candidate.kind === 'ClusterRole' || candidate.kind === 'Role')) {
    if ('aggregationRule' in object) found.push(`${name(object)}: aggregationRule pulls in rules from elsewhere`);
    for (const [index, rule] of ((object.rules as Rule[] | undefined) ?? []).entries()) {
      for (const field of ['apiGroups', 'resources', 'verbs', 'resourceNames', 'nonResourceURLs'] as const) {
        if ((rule[field] ?? []).some((word) => word.includes('*'))) found.push(`${name(object)}: rules[${index}].${field} has a wildcard`);
      }
    }
  }
  return found;
}

/** insecureContainers finds containers that miss any part of the restricted securityContext. */
export function insecureContainers(objects: readonly Manifest[]): string[] {
  const found: string[] = [];
  for (const object of objects) {
    const pod = podSpecOf(object);
    if (!pod) continue;
    if (pod.hostNetwork || pod.hostPID || pod.hostIPC) found.push(`${name(object)}: uses a host namespace`);
    for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
      found.push(...containerSecurity(pod, container).map((problem) => `${name(object)} container ${container.name}: ${problem}`));
    }
  }
  return found;
}

function containerSecurity(pod: PodSpec, container: Container): string[] {
  const own = container.securityContext ?? {};
  const inherited = pod.securityContext ?? {};
  const checks: [broken: boolean, problem: string][] = [
    [(own.runAsNonRoot ?? inherited.runAsNonRoot) !== true, 'runAsNonRoot is not true'],
    [(own.runAsUser ?? inherited.runAsUser) === 0, 'runs as user 0'],
    [own.readOnlyRootFilesystem !== true, 'readOnlyRootFilesystem is not true'],
    [own.allowPrivilegeEscalation !== false, 'allowPrivilegeEscalation is not false'],
    [own.privileged === true, 'is privileged'],
    [!(own.capabilities?.drop ?? []).includes('ALL'), 'does not drop ALL capabilities'],
    [(own.capabilities?.add ?? []).length > 0, 'adds capabilities'],
    [(own.seccompProfile?.type ?? inherited.seccompProfile?.type) !== 'RuntimeDefault', 'seccompProfile is not RuntimeDefault'],
    [!tmpIsEmptyDir(pod, container), '/tmp is not an emptyDir (the root filesystem is read-only)'],
  ];
  return checks.filter(([broken]) => broken).map(([, problem]) => problem);
}

function tmpIsEmptyDir(pod: PodSpec, container: Container): boolean {
  const tmp = (container.volumeMounts ?? []).find((mount) => mount.mountPath === '/tmp');
  return Boolean(pod.volumes?.find((volume) => volume.name === tmp?.name)?.emptyDir);
}

/** unprobedOrUnbounded finds long-running containers without liveness/readiness probes or resources. */
export function unprobedOrUnbounded(objects: readonly Manifest[]): string[] {
  const found: string[] = [];
  for (const object of objects.filter((candidate) => candidate.kind === 'Deployment' || candidate.kind === 'StatefulSet')) {
    for (const container of podSpecOf(object)?.containers ?? []) {
      const where = `${name(object)} container ${container.name}`;
      if (!container.livenessProbe) found.push(`${where}: no livenessProbe`);
      if (!container.readinessProbe) found.push(`${where}: no readinessProbe`);
      if (!container.resources?.requests?.cpu || !container.resources.requests.memory) found.push(`${where}: no cpu and memory requests`);
      if (!container.resources?.limits?.memory) found.push(`${where}: no memory limit`);
    }
  }
  return found;
}

/** unprotectedDeployments finds Deployments of two or more replicas that no PodDisruptionBudget covers. */
export function unprotectedDeployments(objects: readonly Manifest[]): string[] {
  const budgets = objects.filter((object) => object.kind === 'PodDisruptionBudget').map((object) => (object.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels);
  return objects
    .filter((object) => object.kind === 'Deployment' && ((object.spec as { replicas?: number }).replicas ?? 1) >= 2)
    .filter((object) => {
      const labels = (object.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
      return !budgets.some((selector) => Object.entries(selector).every(([key, value]) => labels[key] === value));
    })
    .map((object) => `${name(object)}: no PodDisruptionBudget selects its pods`);
}

/** component finds the one object of a kind whose component label is `component`. */
export function component(objects: readonly Manifest[], kind: string, componentName: string): Manifest {
  const matches = objects.filter((object) => object.kind === kind && object.metadata.labels?.['app.kubernetes.io/component'] === componentName);
  if (matches.length !== 1) throw new Error(`expected one ${kind} of component ${componentName}, found ${matches.length}`);
  return matches[0]!;
}
