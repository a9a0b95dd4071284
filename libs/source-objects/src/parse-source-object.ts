import { Value } from '@sinclair/typebox/value';
import type { KubernetesManifest } from '@tidemark/contracts';
import { parseSourceSpec, SourceSpecError, type SourceSpec } from '@tidemark/git-source';
import { pruneAnnotation, SourceObjectSpec, type SecretReference } from './source-kind';

/** SecretName is a resolved Secret reference. */
export interface SecretName {
  readonly namespace: string;
  readonly name: string;
}

/** SourceDeclaration is a checked Source object: the same SourceSpec a config file gives, and its references. */
export interface SourceDeclaration {
  /** `<namespace>.<name>`: config-file names hold no dot, so the two kinds of source never share a name. */
  readonly name: string;
  readonly object: { readonly namespace: string; readonly name: string; readonly generation: number };
  readonly spec: SourceSpec;
  readonly secret?: SecretName;
  readonly webhook?: { readonly provider: 'github' | 'gitea' | 'gogs' | 'gitlab' | 'generic'; readonly secret: SecretName };
  readonly suspended: boolean;
  /** false with the tidemark.dev/prune: "false" annotation: deleting the Source orphans its objects. */
  readonly prune: boolean;
}

/** sourceNameOf gives the source name of a Source object. */
export function sourceNameOf(namespace: string, name: string): string {
  return `${namespace}.${name}`;
}

/**
 * parseSourceObject checks a Source object with the parser config-file sources go through, and
 * its Secret references against the tenancy rule: a Source may name Secrets in its own namespace
 * only, unless the operator allows cross-namespace references. Errors name the object and field.
 */
export function parseSourceObject(object: KubernetesManifest, allowCrossNamespaceRefs: boolean): SourceDeclaration {
  const namespace = object.metadata.namespace ?? 'default';
  const where = `Source ${namespace}/${object.metadata.name} spec`;
  const input: unknown = object.spec;
  if (!Value.Check(SourceObjectSpec, input)) {
    const first = Value.Errors(SourceObjectSpec, input).First();
    throw new SourceSpecError(`${where}${first?.path ? first.path.replaceAll('/', '.') : ''}: ${first?.message ?? 'is not a valid Source spec'}`);
  }
  const { secretRef, webhook, suspend, ...fields } = input;
  const spec = parseSourceSpec({ ...fields, name: object.metadata.name }, where);
  const secretOf = (ref: SecretReference, field: string): SecretName => {
    const secretNamespace = ref.namespace ?? namespace;
    if (secretNamespace !== namespace && !allowCrossNamespaceRefs) {
      throw new SourceSpecError(`${where}.${field}.namespace: a Source in ${namespace} may use Secrets in ${namespace} only; cross-namespace references are not allowed here`);
    }
    return { namespace: secretNamespace, name: ref.name };
  };
  const name = sourceNameOf(namespace, object.metadata.name);
  return {
    name,
    object: { namespace, name: object.metadata.name, generation: object.metadata.generation ?? 0 },
    spec: Object.freeze({ ...spec, name }),
    ...(secretRef ? { secret: secretOf(secretRef, 'secretRef') } : {}),
    ...(webhook ? { webhook: { provider: webhook.provider, secret: secretOf(webhook.secretRef, 'webhook.secretRef') } } : {}),
    suspended: suspend === true,
    prune: object.metadata.annotations?.[pruneAnnotation] !== 'false',
  };
}
