import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { builtinKinds, healthRuleCrd } from '@tidemark/kinds';
import { sourceCrd } from '@tidemark/source-objects';
import type { KubernetesManifest } from '@tidemark/contracts';
import { CliError, ExitCode } from '../cli-error';
import type { Environment } from '../config';
import { installLabel } from './inventory';

/** InstallSettings say what to install where: the chart, the user's values, and how Tidemark reaches Redis. */
export interface InstallSettings {
  /** @defaultValue 'tidemark' */
  namespace: string;
  /** The Helm release name; objects are named after it. @defaultValue 'tidemark' */
  release: string;
  /** Values files, as `helm template -f`, in order. */
  valuesFiles: readonly string[];
  /** `--set key=value` pairs, as Helm takes them. */
  set: readonly string[];
  /** The chart folder. @defaultValue deploy/helm/tidemark of this checkout */
  chart?: string;
  /** The Kubernetes version Helm's Capabilities report (the cluster's, when there is one). @defaultValue '1.31.0' */
  kubeVersion?: string;
  /** A Redis of the user's, as a redis:// or rediss:// URL; its password goes into a Secret, never a manifest. */
  redisUrl?: string;
  /** Values the command itself adds (bootstrap's), below the user's files and --set. */
  commandValues?: Record<string, unknown>;
  /** Secrets the command writes itself, by name (install --agent's Redis login): their keys are set on every run. */
  givenSecrets?: readonly SecretPlan[];
}

/** SecretPlan is a Secret install makes in the cluster (never printed, never committed). */
export interface SecretPlan {
  name: string;
  /** Keys to write when the Secret or the key is missing; a key already there is kept. */
  generated: Record<string, () => string>;
  /** Keys whose value install sets on every run (a user-given Redis password). */
  given: Record<string, string>;
  /** Labels besides install's own (a Source's opt-in, tidemark.dev/source). */
  labels?: Record<string, string>;
}

/** InstallPlan is everything install applies, in order: namespace, CRDs, then the chart's objects. */
export interface InstallPlan {
  settings: InstallSettings;
  /** The chart's name prefix, e.g. `tidemark`. */
  fullname: string;
  namespace: KubernetesManifest;
  crds: KubernetesManifest[];
  objects: KubernetesManifest[];
  secrets: SecretPlan[];
}

/** The field manager of install's server-side applies; CRDs use the reconciler's CRD manager, so it keeps upgrading them. */
export const installManager = 'tidemark-install';
export const crdManager = 'tidemark-crds';

/** Rendering never waits longer than this, nor reads more output. */
const helmTimeoutMs = 60_000;
const helmMaxBytes = 16 * 1024 * 1024;

/**
 * planInstall renders the chart with the user's values through the pinned helm (`helm template`,
 * nothing sent to a cluster) and splits the result: the namespace, the built-in CRDs (from
 * libs/kinds and libs/source-objects, the source of deploy/crds), the chart's objects labelled as
 * install's, and the Secrets install makes in the cluster instead of rendering them. Secrets are
 * never part of the printed or committed manifests.
 */
export async function planInstall(settings: InstallSettings, env: Environment): Promise<InstallPlan> {
  const redis = settings.redisUrl ? externalRedis(settings.redisUrl, settings.release) : undefined;
  const scratch = await mkdtemp(join(tmpdir(), 'tidemark-install-'));
  try {
    const args = ['template', settings.release, chartFolder(settings.chart), '--namespace', settings.namespace, '--kube-version', settings.kubeVersion ?? '1.31.0'];
    if (settings.commandValues) {
      const file = join(scratch, 'command-values.yaml');
      await writeFile(file, stringify(settings.commandValues));
      args.push('--values', file);
    }
    for (const file of settings.valuesFiles) args.push('--values', resolve(file));
    for (const value of settings.set) args.push('--set', value);
    // What install must decide itself comes last, so no values file can undo it.
    args.push('--set', 'namespace.create=true');
    for (const value of redis?.set ?? []) args.push(value.startsWith('redis.enabled=') ? '--set' : '--set-string', value);
    const text = await runHelm(helmBinary(env), args, scratch, env.PATH ?? '');
    const rendered = parseRendered(text);
    const namespace = rendered.find((object) => object.kind === 'Namespace' && object.metadata.name === settings.namespace);
    if (!namespace) throw new CliError('RenderUnexpected', `the chart rendered no Namespace ${settings.namespace}; is ${chartFolder(settings.chart)} Tidemark's chart?`);
    const reconcilerService = rendered.find((object) => object.kind === 'Service' && object.metadata.name.endsWith('-reconciler'));
    const fullname = reconcilerService?.metadata.name.replace(/-reconciler$/, '') ?? settings.release;
    const objects = rendered.filter((object) => object !== namespace && object.kind !== 'Secret').map((object) => withDefaultedFieldRefs(labelled(object, fullname)));
    const secrets = secretPlans(objects, rendered.filter((object) => object.kind === 'Secret'), commandSecrets(settings, redis));
    return { settings, fullname, namespace: labelled(namespace, fullname), crds: builtinCrds(settings.namespace, `${fullname}-reconciler`, conversionPortOf(reconcilerService)), objects, secrets };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** manifestsText is the plan as one YAML stream (namespace, CRDs, objects), with a header naming the Secrets install would make. */
export function manifestsText(plan: InstallPlan, objects: readonly KubernetesManifest[] = [plan.namespace, ...plan.crds, ...plan.objects]): string {
  const header = [
    `# Tidemark ${plan.fullname} in namespace ${plan.settings.namespace}, rendered by \`tidemark install --export\` from the chart.`,
    '# Secrets are not in this stream; `tidemark install` makes them in the cluster when they are missing:',
    ...plan.secrets.map((secret) => `#   Secret ${plan.settings.namespace}/${secret.name}: ${[...Object.keys(secret.given), ...Object.keys(secret.generated)].join(', ')}`),
  ];
  return `${header.join('\n')}\n${objects.map((object) => `---\n${stringify(object, { lineWidth: 0 })}`).join('')}`;
}

function labelled(object: KubernetesManifest, fullname: string): KubernetesManifest {
  return { ...object, metadata: { ...object.metadata, labels: { ...object.metadata.labels, [installLabel]: fullname } } };
}

/**
 * withDefaultedFieldRefs writes `apiVersion: v1` into each env fieldRef, as the API server defaults
 * it. fieldRef is an atomic map: when install sends it without the default and the reconciler
 * applies the same object from Git, each apply takes the field from the other manager, so neither
 * rerun would ever be "unchanged". Sent whole, both own it together.
 */
function withDefaultedFieldRefs(object: KubernetesManifest): KubernetesManifest {
  const template = (object.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
  if (!template) return object;
  const copy = structuredClone(object);
  const spec = (copy.spec as { template: { spec: PodSpec } }).template.spec;
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    for (const variable of container.env ?? []) {
      const fieldRef = (variable.valueFrom as { fieldRef?: { apiVersion?: string } } | undefined)?.fieldRef;
      if (fieldRef && !fieldRef.apiVersion) fieldRef.apiVersion = 'v1';
    }
  }
  return copy;
}

/** builtinCrds are the CRDs of deploy/crds, with WebApp's conversion webhook pointed at this release's reconciler Service. */
function builtinCrds(namespace: string, service: string, port: number): KubernetesManifest[] {
  const crds = [...builtinKinds.map((kind) => kind.crd), sourceCrd(), healthRuleCrd()];
  return crds.map((crd) => {
    const spec = crd.spec as { conversion?: { strategy?: string; webhook?: { clientConfig?: { service?: Record<string, unknown> } } } };
    const clientService = spec.conversion?.webhook?.clientConfig?.service;
    if (spec.conversion?.strategy !== 'Webhook' || !clientService) return structuredClone(crd);
    const copy = structuredClone(crd);
    (copy.spec as typeof spec).conversion!.webhook!.clientConfig!.service = { ...clientService, namespace, name: service, port };
    return copy;
  });
}

function conversionPortOf(service: KubernetesManifest | undefined): number {
  const ports = (service?.spec as { ports?: { name?: string; port?: number }[] } | undefined)?.ports ?? [];
  return ports.find((port) => port.name === 'conversion')?.port ?? 9443;
}

interface ExternalRedis { set: string[]; secret: SecretPlan }

/**
 * externalRedis turns a user's Redis URL into chart values: the password leaves the URL for a Secret,
 * and the URL names it as $(TIDEMARK_REDIS_PASSWORD), which the kubelet fills in from that Secret.
 */
function externalRedis(text: string, release: string): ExternalRedis {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError('RedisUrlInvalid', 'the Redis URL is not a URL; give it as redis://[user:password@]host:port', ExitCode.Usage);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new CliError('RedisUrlInvalid', `the Redis URL must be redis:// or rediss://, not ${url.protocol}//`, ExitCode.Usage);
  if (!url.hostname) throw new CliError('RedisUrlInvalid', 'the Redis URL names no host', ExitCode.Usage);
  const name = `${release.includes('tidemark') ? release : `${release}-tidemark`}-redis-auth`.slice(0, 63);
  const password = url.password;
  const user = url.username || 'default';
  const rest = `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  const externalUrl = password ? `${url.protocol}//${user}:$(TIDEMARK_REDIS_PASSWORD)@${rest}` : `${url.protocol}//${url.username ? `${url.username}@` : ''}${rest}`;
  const set = ['redis.enabled=false', `redis.externalUrl=${externalUrl}`];
  if (password) set.push(`redis.auth.existingSecret=${name}`);
  return { set, secret: { name, generated: {}, given: password ? { password } : {} } };
}

/** commandSecrets are the Secrets the command writes itself: the user's Redis password, and any it was given. */
function commandSecrets(settings: InstallSettings, redis: ExternalRedis | undefined): SecretPlan[] {
  return [...(redis ? [redis.secret] : []), ...(settings.givenSecrets ?? [])];
}

const generators: Record<string, () => string> = {
  password: () => randomText(40),
  'session-secret': () => randomText(64),
  'tokens.json': () => JSON.stringify([{ name: 'admin', role: 'operator', token: randomText(48) }]),
};

/**
 * secretPlans lists the Secrets the chart's workloads need (env secretKeyRef and secret volumes that
 * are not optional), with the keys install can make: a Redis password, the dashboard's session
 * secret and a first operator token. The chart's own rendered Secrets (a generated Redis password,
 * tokens from values) are made from their rendered data when missing. A needed key install cannot
 * make is an error naming the Secret and the key.
 */
function secretPlans(objects: readonly KubernetesManifest[], renderedSecrets: readonly KubernetesManifest[], given: readonly SecretPlan[]): SecretPlan[] {
  const needed = new Map<string, Set<string>>();
  for (const object of objects) {
    for (const [name, key] of secretReferences(object)) {
      if (!needed.has(name)) needed.set(name, new Set());
      needed.get(name)!.add(key);
    }
  }
  const plans: SecretPlan[] = [];
  for (const [name, keys] of needed) {
    const made = given.find((secret) => secret.name === name);
    if (made) {
      plans.push(made);
      continue;
    }
    const rendered = renderedSecrets.find((secret) => secret.metadata.name === name);
    const generated: Record<string, () => string> = {};
    for (const key of keys) {
      const value = rendered ? renderedValue(rendered, key) : undefined;
      if (value !== undefined) generated[key] = () => value;
      else if (generators[key]) generated[key] = generators[key];
      else throw new CliError('SecretNeeded', `the chart's pods need key "${key}" of Secret ${name}, which install cannot make; create it first (kubectl create secret generic ${name} --from-literal=${key}=...)`, ExitCode.Usage);
    }
    plans.push({ name, generated, given: {} });
  }
  return plans;
}

function secretReferences(object: KubernetesManifest): [string, string][] {
  const template = (object.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
  if (!template) return [];
  return [...envSecretReferences(template), ...volumeSecretReferences(template)];
}

/** envSecretReferences are the required Secret keys the containers' env reads. */
function envSecretReferences(template: PodSpec): [string, string][] {
  const containers = [...(template.initContainers ?? []), ...(template.containers ?? [])];
  return containers.flatMap((container) => (container.env ?? []).flatMap((variable): [string, string][] => {
    const ref = variable.valueFrom?.secretKeyRef;
    return ref?.name && ref.key && !ref.optional ? [[ref.name, ref.key]] : [];
  }));
}

/** volumeSecretReferences are the required Secret keys the volumes mount by item. */
function volumeSecretReferences(template: PodSpec): [string, string][] {
  return (template.volumes ?? []).flatMap((volume): [string, string][] => {
    const secret = volume.secret;
    if (!secret?.secretName || secret.optional) return [];
    return (secret.items ?? []).map((item): [string, string] => [secret.secretName!, item.key]);
  });
}

interface PodSpec {
  containers?: { env?: { valueFrom?: { secretKeyRef?: { name?: string; key?: string; optional?: boolean } } }[] }[];
  initContainers?: PodSpec['containers'];
  volumes?: { secret?: { secretName?: string; optional?: boolean; items?: { key: string }[] } }[];
}

function renderedValue(secret: KubernetesManifest, key: string): string | undefined {
  const stringData = (secret as { stringData?: Record<string, string> }).stringData;
  const data = (secret as { data?: Record<string, string> }).data;
  if (stringData?.[key] !== undefined) return stringData[key];
  if (data?.[key] !== undefined) return Buffer.from(data[key], 'base64').toString('utf8');
  return undefined;
}

function randomText(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  // 248 = 62 * 4: bytes above it would make some letters likelier; redraw them.
  return [...bytes].map((byte) => (byte < 248 ? alphabet[byte % 62] : alphabet[crypto.getRandomValues(new Uint8Array(1))[0]! % 62])).join('');
}

function parseRendered(text: string): KubernetesManifest[] {
  const objects: KubernetesManifest[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new CliError('RenderUnexpected', `helm's output does not parse: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value) || !('kind' in value) || !('metadata' in value)) {
      throw new CliError('RenderUnexpected', `helm rendered a document that is not a Kubernetes object: ${JSON.stringify(value).slice(0, 120)}`);
    }
    objects.push(value as KubernetesManifest);
  }
  return objects;
}

/** chartFolder is the chart to render: the one given, else deploy/helm/tidemark above this file (a checkout or its bundle). */
export function chartFolder(given: string | undefined): string {
  if (given) return resolve(given);
  const root = checkoutRoot();
  if (!root) throw new CliError('ChartNotFound', 'no Tidemark chart beside this tidemark command; give the chart folder with --chart', ExitCode.Usage);
  return join(root, 'deploy/helm/tidemark');
}

function checkoutRoot(): string | undefined {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    if (existsSync(join(folder, 'deploy/helm/tidemark/Chart.yaml'))) return folder;
    folder = dirname(folder);
  }
  return undefined;
}

/** helmBinary is TIDEMARK_HELM, else the pinned helm in tools/bin of this checkout, else `helm` on PATH. */
function helmBinary(env: Environment): string {
  if (env.TIDEMARK_HELM) return env.TIDEMARK_HELM;
  const root = checkoutRoot();
  const pinned = root ? join(root, 'tools/bin/helm') : undefined;
  return pinned && existsSync(pinned) ? pinned : 'helm';
}

function runHelm(binary: string, args: string[], scratch: string, path: string): Promise<string> {
  // A private HOME: no repositories, plugins or caches of the user's reach the render.
  const env = { PATH: path, HOME: scratch, HELM_CACHE_HOME: join(scratch, 'cache'), HELM_CONFIG_HOME: join(scratch, 'config'), HELM_DATA_HOME: join(scratch, 'data') };
  return new Promise((done, fail) => {
    execFile(binary, args, { env, timeout: helmTimeoutMs, maxBuffer: helmMaxBytes }, (error, stdout, stderr) => {
      if (!error) return done(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return fail(new CliError('HelmMissing', `${binary} is not installed; set TIDEMARK_HELM to a helm 3 binary (scripts/setup builds one into tools/bin)`, ExitCode.Usage));
      }
      const message = stderr.trim().split('\n').filter(Boolean).slice(0, 3).join('; ') || error.message;
      fail(new CliError('RenderFailed', `the chart does not render with these values: ${message.replace(/^Error: /, '')}`, ExitCode.Usage));
    });
  });
}
