// The `podman run` of one container of a Pod, as a kubelet would run it: the Pod's env (field, Secret
// and ConfigMap references resolved, `$(NAME)` expanded), its volumes' files, its emptyDirs (an empty
// folder everyone may write, as a kubelet makes one; a tmpfs for medium Memory), its user, groups,
// capabilities and read-only root, its command and args, and its probes as URLs. Pure: the caller
// fetches the objects the Pod refers to and lays the files out (volumeFilesOf says which).
// What a kubelet does and this does not: resource limits and an emptyDir's sizeLimit (a kubelet
// evicts over them), the Pod's own network and hostname (the caller picks a network), image pulls.

/** A Pod as the API server returns it: the fields a container run reads. */
export interface RunnablePod {
  metadata: { name: string; namespace: string };
  spec: {
    containers: RunnableContainer[];
    volumes?: PodVolume[];
    securityContext?: SecurityContext & { fsGroup?: number; supplementalGroups?: number[] };
    serviceAccountName?: string;
    terminationGracePeriodSeconds?: number;
  };
}

export interface RunnableContainer {
  name: string;
  image: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  envFrom?: { prefix?: string; configMapRef?: { name: string; optional?: boolean }; secretRef?: { name: string; optional?: boolean } }[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
  securityContext?: SecurityContext & { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; privileged?: boolean; capabilities?: { add?: string[]; drop?: string[] } };
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}

interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  seccompProfile?: { type: string };
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

interface Probe {
  httpGet?: { path?: string; port: number | string; scheme?: string };
}

interface KeyToPath { key: string; path: string }

export interface PodVolume {
  name: string;
  emptyDir?: { medium?: string; sizeLimit?: string };
  configMap?: { name: string; items?: KeyToPath[]; optional?: boolean };
  secret?: { secretName: string; items?: KeyToPath[]; optional?: boolean };
  projected?: {
    sources: {
      serviceAccountToken?: { path: string };
      configMap?: { name: string; items?: KeyToPath[]; optional?: boolean };
      secret?: { name: string; items?: KeyToPath[]; optional?: boolean };
      downwardAPI?: { items: { path: string; fieldRef?: { fieldPath: string } }[] };
    }[];
  };
}

/** PodObjects are the objects of the Pod's namespace it may refer to: ConfigMaps' data, Secrets' data (base64, as the API returns it), and a token of its ServiceAccount. */
export interface PodObjects {
  configMaps: Record<string, Record<string, string>>;
  secrets: Record<string, Record<string, string>>;
  serviceAccountToken?: string;
}

/**
 * VolumeFiles: a volume that is a folder of files (ConfigMap, Secret, projected), an empty folder
 * every user may write (an emptyDir on disk), or a tmpfs (an emptyDir of medium Memory).
 */
export type VolumeFiles = { kind: 'files'; files: Record<string, Buffer> } | { kind: 'empty' } | { kind: 'tmpfs'; sizeBytes?: number };

export interface ContainerRunOptions {
  /** The podman container's name. */
  name: string;
  /** The folder on this machine of each 'files' volume (holding volumeFilesOf's files) and 'empty' one (mode 0777), by volume name. */
  volumeFolders: Record<string, string>;
  /** The API server as the container reaches it: KUBERNETES_SERVICE_HOST and _PORT. */
  apiServer: { host: string; port: number };
  /** podman's --network. @defaultValue 'host' */
  network?: string;
}

export interface ContainerRun {
  /** Everything after `podman run`. */
  args: string[];
  /** Values of the env vars that come from Secrets: passed to podman's environment, never on its command line. */
  secretEnv: Record<string, string>;
  /** The probes' URLs on the container's network (127.0.0.1 with --network host). */
  probes: { startup?: string; readiness?: string; liveness?: string };
}

/** PodRunError names the Pod, and the field of it, that cannot be run as given. */
export class PodRunError extends Error {
  readonly code = 'PodRunError';
}

/** volumeFilesOf gives each volume of the Pod its files (from `objects`) or says it is a tmpfs. */
export function volumeFilesOf(pod: RunnablePod, objects: PodObjects): Record<string, VolumeFiles> {
  const volumes: Record<string, VolumeFiles> = {};
  for (const volume of pod.spec.volumes ?? []) {
    const where = `pod ${pod.metadata.namespace}/${pod.metadata.name} spec.volumes[${volume.name}]`;
    if (volume.emptyDir?.medium === 'Memory') {
      const sizeBytes = volume.emptyDir.sizeLimit === undefined ? undefined : bytesOf(volume.emptyDir.sizeLimit, `${where}.emptyDir.sizeLimit`);
      volumes[volume.name] = { kind: 'tmpfs', ...(sizeBytes === undefined ? {} : { sizeBytes }) };
    } else if (volume.emptyDir) {
      volumes[volume.name] = { kind: 'empty' };
    } else if (volume.configMap) {
      volumes[volume.name] = { kind: 'files', files: keyFiles(objects.configMaps[volume.configMap.name], volume.configMap, 'text', `${where}.configMap: ConfigMap ${volume.configMap.name}`) };
    } else if (volume.secret) {
      const { secretName, ...rest } = volume.secret;
      volumes[volume.name] = { kind: 'files', files: keyFiles(objects.secrets[secretName], rest, 'base64', `${where}.secret: Secret ${secretName}`) };
    } else if (volume.projected) {
      volumes[volume.name] = { kind: 'files', files: projectedFiles(pod, volume.projected.sources, objects, `${where}.projected`) };
    } else {
      throw new PodRunError(`${where}: only emptyDir, configMap, secret and projected volumes can be run here`);
    }
  }
  return volumes;
}

function projectedFiles(pod: RunnablePod, sources: NonNullable<PodVolume['projected']>['sources'], objects: PodObjects, where: string): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  sources.forEach((source, index) => {
    const at = `${where}.sources[${index}]`;
    if (source.serviceAccountToken) {
      if (objects.serviceAccountToken === undefined) throw new PodRunError(`${at}.serviceAccountToken: no token of ServiceAccount ${pod.spec.serviceAccountName ?? 'default'} was given`);
      files[source.serviceAccountToken.path] = Buffer.from(objects.serviceAccountToken);
    } else if (source.configMap) {
      Object.assign(files, keyFiles(objects.configMaps[source.configMap.name], source.configMap, 'text', `${at}.configMap: ConfigMap ${source.configMap.name}`));
    } else if (source.secret) {
      Object.assign(files, keyFiles(objects.secrets[source.secret.name], source.secret, 'base64', `${at}.secret: Secret ${source.secret.name}`));
    } else if (source.downwardAPI) {
      for (const item of source.downwardAPI.items) files[item.path] = Buffer.from(fieldOf(pod, item.fieldRef?.fieldPath, `${at}.downwardAPI ${item.path}`));
    } else {
      throw new PodRunError(`${at}: only serviceAccountToken, configMap, secret and downwardAPI sources can be run here`);
    }
  });
  return files;
}

/** keyFiles is a ConfigMap's or Secret's keys as files (all of them, or `items`); absent and optional gives none. */
function keyFiles(data: Record<string, string> | undefined, source: { items?: KeyToPath[]; optional?: boolean }, encoding: 'text' | 'base64', where: string): Record<string, Buffer> {
  if (data === undefined) {
    if (source.optional) return {};
    throw new PodRunError(`${where} does not exist, and the volume is not optional`);
  }
  const items = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
  const files: Record<string, Buffer> = {};
  for (const item of items) {
    const value = data[item.key];
    if (value === undefined) throw new PodRunError(`${where} has no key ${item.key}`);
    files[item.path] = encoding === 'base64' ? Buffer.from(value, 'base64') : Buffer.from(value);
  }
  return files;
}

/** fieldOf resolves the downward API fields a Pod spec can ask before it is scheduled. */
function fieldOf(pod: RunnablePod, fieldPath: string | undefined, where: string): string {
  if (fieldPath === 'metadata.namespace') return pod.metadata.namespace;
  if (fieldPath === 'metadata.name') return pod.metadata.name;
  if (fieldPath === 'spec.serviceAccountName') return pod.spec.serviceAccountName ?? 'default';
  throw new PodRunError(`${where}: the field ${fieldPath ?? '(none)'} cannot be resolved here (metadata.namespace, metadata.name, spec.serviceAccountName can)`);
}

/** bytesOf reads a Kubernetes quantity of bytes: 256Mi, 2Gi, 1G, 1000. */
function bytesOf(quantity: string, where: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity);
  if (!match) throw new PodRunError(`${where}: "${quantity}" is not a quantity of bytes this run reads (e.g. 256Mi, 2Gi)`);
  const units: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(match[1]) * (match[2] ? units[match[2]]! : 1);
}

/** containerRunOf is the `podman run` of `containerName` in `pod`, with its files in options.volumeFolders. */
export function containerRunOf(pod: RunnablePod, containerName: string, objects: PodObjects, options: ContainerRunOptions): ContainerRun {
  const where = `pod ${pod.metadata.namespace}/${pod.metadata.name}`;
  const container = pod.spec.containers.find((candidate) => candidate.name === containerName);
  if (!container) throw new PodRunError(`${where} has no container ${containerName} (it has ${pod.spec.containers.map((candidate) => candidate.name).join(', ')})`);
  const at = `${where} container ${containerName}`;
  const volumes = volumeFilesOf(pod, objects);
  const secretEnv: Record<string, string> = {};
  const args = ['--name', options.name, '--network', options.network ?? 'host', '--pull', pullOf(container.imagePullPolicy)];
  if (pod.spec.terminationGracePeriodSeconds !== undefined) args.push('--stop-timeout', String(pod.spec.terminationGracePeriodSeconds));
  args.push(...securityArgs(pod, container));
  // What a kubelet puts in every container's environment first: the API server's Service.
  const environment = new Environment(secretEnv);
  environment.define('KUBERNETES_SERVICE_HOST', options.apiServer.host, false);
  environment.define('KUBERNETES_SERVICE_PORT', String(options.apiServer.port), false);
  defineEnv(pod, container, objects, environment, at);
  args.push(...environment.args());
  args.push(...mountArgs(container, volumes, options.volumeFolders, at));
  if (container.workingDir) args.push('--workdir', container.workingDir);
  if (container.command) args.push('--entrypoint', JSON.stringify(container.command.map((word) => environment.expandPlain(word, `${at} command`))));
  args.push(container.image, ...(container.args ?? []).map((word) => environment.expandPlain(word, `${at} args`)));
  return { args, secretEnv, probes: probeUrls(container, at) };
}

function pullOf(policy: RunnableContainer['imagePullPolicy']): string {
  return policy === 'Always' ? 'always' : policy === 'Never' ? 'never' : 'missing';
}

/** securityArgs: the user and groups (the container's over the Pod's), capabilities, privilege escalation, seccomp, read-only root. */
function securityArgs(pod: RunnablePod, container: RunnableContainer): string[] {
  const podContext = pod.spec.securityContext ?? {};
  const context = { ...podContext, ...container.securityContext };
  const args: string[] = [];
  if (context.runAsUser !== undefined) args.push('--user', context.runAsGroup === undefined ? String(context.runAsUser) : `${context.runAsUser}:${context.runAsGroup}`);
  for (const group of [podContext.fsGroup, ...(podContext.supplementalGroups ?? [])]) {
    if (group !== undefined) args.push('--group-add', String(group));
  }
  args.push(...privilegeArgs(context, `pod ${pod.metadata.namespace}/${pod.metadata.name}`));
  // A read-only root as a kubelet makes it: writable only where the Pod mounts a volume (podman's own /tmp, /run tmpfs would hide a missing emptyDir).
  if (context.readOnlyRootFilesystem) args.push('--read-only', '--read-only-tmpfs=false');
  return args;
}

function privilegeArgs(context: NonNullable<RunnableContainer['securityContext']>, where: string): string[] {
  const args: string[] = [];
  if (context.privileged) args.push('--privileged');
  for (const capability of context.capabilities?.drop ?? []) args.push('--cap-drop', capability);
  for (const capability of context.capabilities?.add ?? []) args.push('--cap-add', capability);
  if (context.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges');
  // RuntimeDefault is podman's default profile too.
  const seccomp = context.seccompProfile?.type;
  if (seccomp === 'Unconfined') args.push('--security-opt', 'seccomp=unconfined');
  else if (seccomp !== undefined && seccomp !== 'RuntimeDefault') throw new PodRunError(`${where}: seccompProfile ${seccomp} cannot be run here`);
  return args;
}

/**
 * Environment is a container's env as a kubelet builds it: in order, each value expanding the
 * `$(NAME)` of those before it (`$$` is a `$`). A value that is or holds a Secret's goes to
 * podman's environment (`--env NAME`), the others on its command line.
 */
class Environment {
  private readonly values = new Map<string, { value: string; secret: boolean }>();

  constructor(private readonly secretEnv: Record<string, string>) {}

  define(name: string, value: string, secret: boolean): void {
    this.values.set(name, { value, secret });
  }

  /** defineExpanded defines `name` as `text` with the `$(NAME)`s defined so far expanded. */
  defineExpanded(name: string, text: string): void {
    const { value, secret } = this.expand(text);
    this.define(name, value, secret);
  }

  /** expandPlain expands a command or argument word, which cannot carry a Secret's value unseen. */
  expandPlain(text: string, where: string): string {
    const { value, secret } = this.expand(text);
    if (secret) throw new PodRunError(`${where}: "${text}" expands a Secret's value onto the command line`);
    return value;
  }

  args(): string[] {
    const args: string[] = [];
    for (const [name, { value, secret }] of this.values) {
      if (secret) {
        this.secretEnv[name] = value;
        args.push('--env', name);
      } else {
        args.push('--env', `${name}=${value}`);
      }
    }
    return args;
  }

  private expand(text: string): { value: string; secret: boolean } {
    let secret = false;
    const value = text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
      if (name === undefined) return '$';
      const known = this.values.get(name);
      if (!known) return match;
      secret ||= known.secret;
      return known.value;
    });
    return { value, secret };
  }
}

function defineEnv(pod: RunnablePod, container: RunnableContainer, objects: PodObjects, environment: Environment, at: string): void {
  for (const [index, source] of (container.envFrom ?? []).entries()) defineEnvFrom(source, objects, environment, `${at} envFrom[${index}]`);
  for (const variable of container.env ?? []) {
    const where = `${at} env ${variable.name}`;
    if (!variable.valueFrom) {
      environment.defineExpanded(variable.name, variable.value ?? '');
      continue;
    }
    const resolved = valueFromOf(pod, variable.valueFrom, objects, where);
    if (resolved) environment.define(variable.name, resolved.value, resolved.secret);
  }
}

function defineEnvFrom(source: NonNullable<RunnableContainer['envFrom']>[number], objects: PodObjects, environment: Environment, where: string): void {
  const ref = source.configMapRef ?? source.secretRef;
  if (!ref) throw new PodRunError(`${where}: only configMapRef and secretRef can be run here`);
  const secret = source.secretRef !== undefined;
  const data = secret ? objects.secrets[ref.name] : objects.configMaps[ref.name];
  if (data === undefined) {
    if (ref.optional) return;
    throw new PodRunError(`${where}: ${secret ? 'Secret' : 'ConfigMap'} ${ref.name} does not exist`);
  }
  for (const [key, value] of Object.entries(data)) environment.define(`${source.prefix ?? ''}${key}`, secret ? Buffer.from(value, 'base64').toString() : value, secret);
}

/** valueFromOf resolves an env var's valueFrom; undefined for an optional key that is absent. */
function valueFromOf(pod: RunnablePod, from: NonNullable<EnvVar['valueFrom']>, objects: PodObjects, where: string): { value: string; secret: boolean } | undefined {
  if (from.fieldRef) return { value: fieldOf(pod, from.fieldRef.fieldPath, where), secret: false };
  const ref = from.secretKeyRef ?? from.configMapKeyRef;
  if (!ref) throw new PodRunError(`${where}: only value, fieldRef, configMapKeyRef and secretKeyRef can be run here`);
  const secret = from.secretKeyRef !== undefined;
  const value = (secret ? objects.secrets : objects.configMaps)[ref.name]?.[ref.key];
  if (value === undefined) {
    if (ref.optional) return undefined;
    throw new PodRunError(`${where}: ${secret ? 'Secret' : 'ConfigMap'} ${ref.name} has no key ${ref.key}`);
  }
  return { value: secret ? Buffer.from(value, 'base64').toString() : value, secret };
}

function mountArgs(container: RunnableContainer, volumes: Record<string, VolumeFiles>, folders: Record<string, string>, at: string): string[] {
  const args: string[] = [];
  for (const mount of container.volumeMounts ?? []) {
    const where = `${at} volumeMounts ${mount.mountPath}`;
    const volume = volumes[mount.name];
    if (!volume) throw new PodRunError(`${where}: the Pod has no volume ${mount.name}`);
    if (volume.kind === 'tmpfs') {
      if (mount.subPath) throw new PodRunError(`${where}: a subPath of an emptyDir cannot be run here`);
      const options = [mount.readOnly ? 'ro' : 'rw', 'mode=1777', ...(volume.sizeBytes === undefined ? [] : [`size=${volume.sizeBytes}`])];
      args.push('--tmpfs', `${mount.mountPath}:${options.join(',')}`);
      continue;
    }
    const folder = folders[mount.name];
    if (!folder) throw new PodRunError(`${where}: no folder was laid out for volume ${mount.name}`);
    // ConfigMap, Secret and projected volumes are read-only in a kubelet's Pod, whatever the mount says.
    const access = volume.kind === 'empty' && !mount.readOnly ? 'rw' : 'ro';
    args.push('--volume', `${mount.subPath ? `${folder}/${mount.subPath}` : folder}:${mount.mountPath}:${access}`);
  }
  return args;
}

function probeUrls(container: RunnableContainer, at: string): ContainerRun['probes'] {
  const urlOf = (probe: Probe | undefined, which: string): string | undefined => {
    if (!probe?.httpGet) return undefined;
    const { port, path, scheme } = probe.httpGet;
    const number = typeof port === 'number' ? port : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
    if (number === undefined) throw new PodRunError(`${at} ${which}.httpGet.port: no container port is named ${port}`);
    return `${(scheme ?? 'HTTP').toLowerCase()}://127.0.0.1:${number}${path ?? '/'}`;
  };
  const probes: ContainerRun['probes'] = {};
  const startup = urlOf(container.startupProbe, 'startupProbe');
  const readiness = urlOf(container.readinessProbe, 'readinessProbe');
  const liveness = urlOf(container.livenessProbe, 'livenessProbe');
  if (startup) probes.startup = startup;
  if (readiness) probes.readiness = readiness;
  if (liveness) probes.liveness = liveness;
  return probes;
}
