import { Value } from '@sinclair/typebox/value';
import type { KubernetesManifest } from '@tidemark/contracts';
import { TerminalError } from '@tidemark/contracts';
import { parseSourceSpec, SourceSpecError, type SourceAllow, type SourceSpec } from '@tidemark/git-source';
import { keepServiceAccountsIn, narrowAllow } from './allow-ceiling';
import { servesNamespace, type ServedNamespaces } from './served-namespaces';
import { SourceReason } from './source-object-status';
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
  /** The Secret holding this source's sops keys: always in the Source's own namespace. */
  readonly decryption?: SecretName;
  readonly suspended: boolean;
  /** false with the tidemark.dev/prune: "false" annotation: deleting the Source orphans its objects. */
  readonly prune: boolean;
}

/** SourceObjectRules are the operator's rules for Source objects (the reconciler's config). */
export interface SourceObjectRules {
  /** May a Source name a Secret or ServiceAccount in another namespace (Flux's --no-cross-namespace-refs=false)? @defaultValue false */
  allowCrossNamespaceRefs?: boolean;
  /** A Source without serviceAccount acts as this ServiceAccount of its own namespace. @defaultValue none: such a Source is refused (IdentityRequired) */
  defaultServiceAccountName?: string;
  /** The ceiling of every Source's allow-list: a Source can only narrow it. @defaultValue none: a Source's own list, or none */
  allow?: SourceAllow;
  /** Where the reconciler may read Secrets: a cross-namespace reference must stay inside. @defaultValue 'all' */
  servedNamespaces?: ServedNamespaces;
}

/** sourceNameOf gives the source name of a Source object. */
export function sourceNameOf(namespace: string, name: string): string {
  return `${namespace}.${name}`;
}

/**
 * parseSourceObject checks a Source object with the parser config-file sources go through, and
 * its references against the tenancy rule: a Source may name Secrets and ServiceAccounts (its own,
 * and those its Placement rules may act as: allow.serviceAccounts) in its own namespace only, unless
 * the operator allows cross-namespace references. It fails closed: a Source with no identity (no
 * serviceAccount, no operator default) is refused with IdentityRequired, never run as the
 * reconciler. Its allow-list is narrowed to the operator's ceiling. Errors name the object and field.
 */
export function parseSourceObject(object: KubernetesManifest, options: SourceObjectRules = {}): SourceDeclaration {
  const namespace = object.metadata.namespace ?? 'default';
  const where = `Source ${namespace}/${object.metadata.name} spec`;
  const input = checkedSpec(object.spec, where);
  const refs = new NamespaceRule(namespace, where, options.allowCrossNamespaceRefs ?? false, options.servedNamespaces ?? 'all');
  const { secretRef, webhook, suspend, decryption, ...fields } = input;
  const serviceAccount = checkedIdentity(fields, options, object.metadata.name, refs);
  const spec = parseSourceSpec({ ...fields, serviceAccount, name: object.metadata.name }, where);
  const narrowed = narrowAllow(spec.allow, options.allow);
  // The operator's ceiling may name every team's ServiceAccounts; a Source's rules still name only its own namespace's.
  const allow = options.allowCrossNamespaceRefs ? narrowed : keepServiceAccountsIn(narrowed, refs.namespace);
  const name = sourceNameOf(namespace, object.metadata.name);
  return {
    name,
    object: { namespace, name: object.metadata.name, generation: object.metadata.generation ?? 0 },
    spec: Object.freeze({ ...withoutAllow(spec), ...(allow ? { allow } : {}), name }),
    ...(secretRef ? { secret: refs.secret(secretRef, 'secretRef') } : {}),
    ...(webhook ? { webhook: { provider: webhook.provider, secret: refs.secret(webhook.secretRef, 'webhook.secretRef') } } : {}),
    // No namespace field: decryption keys are the most sensitive Secret, and never cross namespaces.
    ...(decryption ? { decryption: refs.secret({ name: decryption.secretRef.name }, 'decryption.secretRef') } : {}),
    suspended: suspend === true,
    prune: object.metadata.annotations?.[pruneAnnotation] !== 'false',
  };
}

/**
 * checkedIdentity is the ServiceAccount a Source acts as (its own, else the operator's default of its
 * namespace; none is refused), and holds it and those its Placement rules may name to the namespace rule.
 */
function checkedIdentity(fields: Pick<SourceObjectSpec, 'serviceAccount' | 'allow'>, options: SourceObjectRules, name: string, refs: NamespaceRule): { namespace: string; name: string } {
  const namespace = refs.namespace;
  const serviceAccount = fields.serviceAccount ?? (options.defaultServiceAccountName ? { namespace, name: options.defaultServiceAccountName } : undefined);
  if (!serviceAccount) throw identityRequired(namespace, name);
  refs.check(serviceAccount.namespace, 'serviceAccount.namespace', 'act as a ServiceAccount');
  for (const [index, pattern] of (fields.allow?.serviceAccounts ?? []).entries()) {
    refs.check(pattern.slice(0, pattern.indexOf('/')), `allow.serviceAccounts[${index}]`, 'let Placement rules act as ServiceAccounts');
  }
  return serviceAccount;
}

function identityRequired(namespace: string, name: string): TerminalError {
  return new TerminalError(SourceReason.IdentityRequired, `Source ${namespace}/${name} spec.serviceAccount: required; a Source acts as a ServiceAccount of its own namespace, never as the reconciler. Set spec.serviceAccount to a ServiceAccount in ${namespace} that may write what the Source applies, or ask the operator to set sourceObjects.defaultServiceAccountName. Nothing is fetched or applied until then.`);
}

function withoutAllow(spec: SourceSpec): Omit<SourceSpec, 'allow'> {
  const { allow: _ignored, ...rest } = spec;
  return rest;
}

function checkedSpec(input: unknown, where: string): SourceObjectSpec {
  if (Value.Check(SourceObjectSpec, input)) return input;
  const first = Value.Errors(SourceObjectSpec, input).First();
  throw new SourceSpecError(`${where}${first?.path ? first.path.replaceAll('/', '.') : ''}: ${first?.message ?? 'is not a valid Source spec'}`);
}

/** NamespaceRule is the tenancy rule: a Source's references stay in its namespace unless the operator allows otherwise. */
class NamespaceRule {
  constructor(readonly namespace: string, private readonly where: string, private readonly allowOthers: boolean, private readonly served: ServedNamespaces) {}

  check(namespace: string, field: string, what: string): void {
    if (namespace === this.namespace || this.allowOthers) return;
    throw new SourceSpecError(`${this.where}.${field}: a Source in ${this.namespace} may ${what} in ${this.namespace} only; cross-namespace references are not allowed here`);
  }

  secret(ref: SecretReference, field: string): SecretName {
    const namespace = ref.namespace ?? this.namespace;
    this.check(namespace, `${field}.namespace`, 'use Secrets');
    // The reconciler's RBAC reads and watches Secrets only where it serves Sources.
    if (!servesNamespace(this.served, namespace)) {
      throw new SourceSpecError(`${this.where}.${field}.namespace: Secrets in ${namespace} cannot be read; Tidemark serves Sources and reads Secrets only in sourceObjects.namespaces (${(this.served as readonly string[]).join(', ')})`);
    }
    return { namespace, name: ref.name };
  }
}
