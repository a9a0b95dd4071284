import { Value } from '@sinclair/typebox/value';
import { TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { ClusterObjectSpec, defaultKubeconfigKey } from './cluster-kind';

const dnsLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** ClusterCredentialsRef is where a Cluster's credentials come from: a Secret beside it, or the pod's own ServiceAccount. */
export type ClusterCredentialsRef =
  | { readonly inCluster: true }
  | { readonly secret: { readonly namespace: string; readonly name: string; readonly key: string } };

/** ClusterDeclaration is a Cluster object as the reconciler uses it. */
export interface ClusterDeclaration {
  /** The cluster's name: the object's metadata.name. */
  readonly name: string;
  /** The object's namespace/name, for messages. */
  readonly object: { readonly namespace: string; readonly name: string; readonly generation: number };
  readonly labels: Readonly<Record<string, string>>;
  readonly credentials: ClusterCredentialsRef;
  readonly allowExecPlugins: boolean;
  readonly prune: boolean;
}

/**
 * parseClusterObject checks a Cluster object's spec (the API server checked it too, unless the
 * CRD is older) and gives its declaration. A bad spec is a TerminalError (code InvalidCluster)
 * naming the object and the field.
 */
export function parseClusterObject(object: KubernetesManifest): ClusterDeclaration {
  const namespace = object.metadata.namespace ?? 'default';
  const where = `Cluster ${namespace}/${object.metadata.name}`;
  if (!dnsLabel.test(object.metadata.name)) throw new TerminalError('InvalidCluster', `${where}: metadata.name must be a DNS label (lower-case letters, digits and -, at most 63).`);
  const spec = (object as { spec?: unknown }).spec ?? {};
  if (!Value.Check(ClusterObjectSpec, spec)) throw new TerminalError('InvalidCluster', `${where}: ${firstError(spec)}.`);
  const secretRef = spec.kubeconfigSecretRef;
  if (Boolean(secretRef) === Boolean(spec.inCluster)) throw new TerminalError('InvalidCluster', `${where}: spec: set exactly one of kubeconfigSecretRef or inCluster: true.`);
  return {
    name: object.metadata.name,
    object: { namespace, name: object.metadata.name, generation: object.metadata.generation ?? 0 },
    labels: spec.labels ?? {},
    credentials: secretRef ? { secret: { namespace, name: secretRef.name, key: secretRef.key ?? defaultKubeconfigKey } } : { inCluster: true },
    allowExecPlugins: spec.allowExecPlugins ?? false,
    prune: spec.prune ?? false,
  };
}

/** firstError says what is wrong with a spec, by its field path. */
function firstError(spec: unknown): string {
  const first = Value.Errors(ClusterObjectSpec, spec).First();
  return first ? `spec${first.path.replaceAll('/', '.')}: ${first.message}` : 'spec: is not valid';
}

/** credentialsWhere names a Cluster's credentials in messages: the Cluster, the field, and the Secret and key. */
export function credentialsWhere(declaration: Pick<ClusterDeclaration, 'object' | 'credentials'>): string {
  const cluster = `Cluster ${declaration.object.namespace}/${declaration.object.name}`;
  const ref = declaration.credentials;
  return 'secret' in ref ? `${cluster}: spec.kubeconfigSecretRef (Secret ${ref.secret.namespace}/${ref.secret.name}, key ${ref.secret.key})` : `${cluster}: spec.inCluster`;
}
