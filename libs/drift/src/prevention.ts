import { scrubText, type KubernetesManifest } from '@tidemark/contracts';

// Drift prevention: objects opted in are guarded at admission by a ValidatingAdmissionPolicy
// (CEL, no webhook server), so an edit made outside Git is refused instead of healed later.

/** Label Tidemark puts on a prevented object; the policy's binding selects it. */
export const preventLabel = 'tidemark.dev/drift-prevent';
/** Annotation naming where Git declares a prevented object, for the refusal message. */
export const gitFileAnnotation = 'tidemark.dev/git-file';
/**
 * Annotation a cluster admin sets to lift prevention for one object (its value says why). Only
 * members of a break-glass group may set it; while it is set, anyone may edit the object and
 * Tidemark reports the drift instead of healing it.
 */
export const breakGlassAnnotation = 'tidemark.dev/break-glass';
/** The names of the policy and its binding in every cluster. */
export const preventionPolicyName = 'tidemark-drift-prevention';
/** Annotation on the policy holding the identities it trusts, as a JSON list (the CEL is built from it). */
export const trustedUsersAnnotation = 'tidemark.dev/trusted-users';
/**
 * Annotation on the policy holding the tenants' identities it trusts, each with the namespaces
 * ('' for cluster-scoped objects) it applied prevented objects to, as a JSON object.
 */
export const tenantUsersAnnotation = 'tidemark.dev/tenant-users';
/** Annotation on the policy holding the kinds (`group/Kind`) Tidemark applied prevented objects of, as a JSON list. */
export const preventedKindsAnnotation = 'tidemark.dev/prevented-kinds';

/** PreventionRules say who may still change a prevented object. */
export interface PreventionRules {
  /** The kinds (`group/Kind`) prevented objects have been applied of; recorded on the policy for its removal. */
  preventedKinds?: readonly string[];
  /** Usernames that may update and delete any prevented object: Tidemark's own identity and named controllers. */
  trustedUsers: readonly string[];
  /**
   * Tenants' identities (the ServiceAccounts Tidemark impersonates), each trusted only for prevented
   * objects in the namespaces listed for it ('' for cluster-scoped ones): one tenant's identity never
   * passes the policy on another tenant's objects.
   */
  tenantUsers?: Readonly<Record<string, readonly string[]>>;
  /** Username prefixes trusted the same way, e.g. `system:serviceaccount:kube-system:` for the built-in controllers. */
  trustedUserPrefixes: readonly string[];
  /** Groups whose members may set the break-glass annotation. */
  breakGlassGroups: readonly string[];
}

/** The defaults: the built-in controllers (status, scale, garbage collection, namespace deletion) and cluster admins for break-glass. */
export const defaultPreventionRules: PreventionRules = {
  trustedUsers: ['system:kube-controller-manager', 'system:kube-scheduler'],
  trustedUserPrefixes: ['system:serviceaccount:kube-system:'],
  breakGlassGroups: ['system:masters'],
};

/** withPrevention labels an object for the policy and says which Git file declares it. */
export function withPrevention(object: KubernetesManifest, gitFile: string): KubernetesManifest {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { ...object.metadata.labels, [preventLabel]: 'true' },
      annotations: { ...object.metadata.annotations, [gitFileAnnotation]: gitFile },
    },
  };
}

/** isPrevented: the object carries the label the policy's binding selects. */
export function isPrevented(object: Pick<KubernetesManifest, 'metadata'> | undefined): boolean {
  return object?.metadata.labels?.[preventLabel] === 'true';
}

/** breakGlassOf is the reason a cluster admin gave for lifting prevention on an object, or undefined. */
export function breakGlassOf(object: Pick<KubernetesManifest, 'metadata'> | undefined): string | undefined {
  const value = object?.metadata.annotations?.[breakGlassAnnotation];
  // Cluster text: bounded and scrubbed before it reaches a status or an Event.
  return value === undefined ? undefined : scrubText(value.replace(/\p{Cc}/gu, ' ').slice(0, 200));
}

const usernamePattern = /^[\w.@:/+=-]{1,253}$/u;
const namespacePattern = /^(|[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)$/u;
const groupKindPattern = /^[a-z0-9.-]{0,253}\/[A-Za-z][A-Za-z0-9]{0,62}$/u;

/** stringList reads a JSON list of strings from an annotation, keeping only those that match. */
function stringList(raw: string | undefined, pattern: RegExp): string[] {
  if (!raw || raw.length > 100_000) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string' && pattern.test(item)) : [];
  } catch {
    return [];
  }
}

/**
 * trustedUsersOf reads the identities a live policy trusts from its annotation. The policy is
 * cluster state, so anything that is not a plain list of usernames is dropped, not trusted.
 */
export function trustedUsersOf(policy: Pick<KubernetesManifest, 'metadata'> | undefined): string[] {
  return stringList(policy?.metadata.annotations?.[trustedUsersAnnotation], usernamePattern);
}

/**
 * tenantUsersOf reads the tenants' identities a live policy trusts and their namespaces. Cluster
 * state: an entry that is not a plain username with a list of namespace names is dropped.
 */
export function tenantUsersOf(policy: Pick<KubernetesManifest, 'metadata'> | undefined): Record<string, string[]> {
  const raw = policy?.metadata.annotations?.[tenantUsersAnnotation];
  const tenants: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  if (!raw || raw.length > 100_000) return tenants;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return tenants;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return tenants;
  for (const [user, namespaces] of Object.entries(parsed)) {
    if (!usernamePattern.test(user) || !Array.isArray(namespaces)) continue;
    const kept = namespaces.filter((namespace): namespace is string => typeof namespace === 'string' && namespacePattern.test(namespace));
    if (kept.length > 0) tenants[user] = [...new Set(kept)].sort();
  }
  return tenants;
}

/** mergeTenantUsers adds tenants' namespaces to those already trusted; a list only grows. */
export function mergeTenantUsers(...sets: ReadonlyArray<Readonly<Record<string, readonly string[]>>>): Record<string, string[]> {
  const merged: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const set of sets) {
    for (const [user, namespaces] of Object.entries(set)) merged[user] = [...new Set([...(merged[user] ?? []), ...namespaces])].sort();
  }
  return merged;
}

/** preventedKindsOf reads the kinds (`group/Kind`, '' for core) a live policy has guarded objects of. */
export function preventedKindsOf(policy: Pick<KubernetesManifest, 'metadata'> | undefined): string[] {
  return stringList(policy?.metadata.annotations?.[preventedKindsAnnotation], groupKindPattern);
}

/** celString quotes a value as a CEL string literal; usernames and groups are checked, but quote anyway. */
function celString(value: string): string {
  return `'${value.replace(/\\/gu, '\\\\').replace(/'/gu, "\\'")}'`;
}

function celList(values: readonly string[]): string {
  return `[${[...new Set(values)].sort().map(celString).join(', ')}]`;
}

/** celTenantMap is a CEL map literal from each tenant identity to its namespaces. */
function celTenantMap(tenants: Readonly<Record<string, readonly string[]>>): string {
  return `{${Object.keys(tenants).sort().map((user) => `${celString(user)}: ${celList(tenants[user]!)}`).join(', ')}}`;
}

/**
 * preventionPolicy is the ValidatingAdmissionPolicy and its binding. An update or delete of an
 * object labelled `tidemark.dev/drift-prevent: "true"` (before or after the change) is refused
 * unless it comes from a trusted identity (a tenant's only in its own namespaces), or the object already carries the break-glass
 * annotation, or a break-glass group member sets that annotation with it. Status writes are a
 * subresource and never matched. The scale subresource carries none of the object's labels, so
 * admission cannot tell a prevented object's scale from another's: a scale goes through and is
 * healed as drift.
 */
export function preventionPolicy(rules: PreventionRules): [KubernetesManifest, KubernetesManifest] {
  const users = [...new Set(rules.trustedUsers)].filter((user) => usernamePattern.test(user)).sort();
  const prefixes = rules.trustedUserPrefixes.filter((prefix) => usernamePattern.test(prefix));
  const groups = rules.breakGlassGroups.filter((group) => usernamePattern.test(group));
  const tenants = tenantUsersOf({ metadata: { name: '', annotations: { [tenantUsersAnnotation]: JSON.stringify(rules.tenantUsers ?? {}) } } });
  const labels = { 'app.kubernetes.io/managed-by': 'tidemark' };
  const annotations = (target: string) => `has(${target}.metadata.annotations) ? ${target}.metadata.annotations : {}`;
  const policy: KubernetesManifest = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: {
      name: preventionPolicyName, labels,
      annotations: {
        [trustedUsersAnnotation]: JSON.stringify(users),
        [tenantUsersAnnotation]: JSON.stringify(tenants),
        [preventedKindsAnnotation]: JSON.stringify([...new Set(rules.preventedKinds ?? [])].filter((kind) => groupKindPattern.test(kind)).sort()),
      },
    },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['UPDATE', 'DELETE'], resources: ['*'], scope: '*' }],
      },
      variables: [
        { name: 'target', expression: "request.operation == 'DELETE' ? oldObject : object" },
        { name: 'targetAnnotations', expression: annotations('variables.target') },
        { name: 'oldAnnotations', expression: annotations('oldObject') },
        { name: 'targetNamespace', expression: "has(variables.target.metadata.namespace) ? variables.target.metadata.namespace : ''" },
        { name: 'tenants', expression: celTenantMap(tenants) },
        { name: 'newAnnotations', expression: `object == null ? {} : (${annotations('object')})` },
        {
          name: 'trusted',
          expression: `request.userInfo.username in ${celList(users)} || ${celList(prefixes)}.exists(prefix, request.userInfo.username.startsWith(prefix))`
            + ` || (request.userInfo.username in variables.tenants && variables.targetNamespace in variables.tenants[request.userInfo.username])`,
        },
        { name: 'breakGlassMember', expression: `has(request.userInfo.groups) && request.userInfo.groups.exists(group, group in ${celList(groups)})` },
      ],
      validations: [{
        expression: `variables.trusted || '${breakGlassAnnotation}' in variables.oldAnnotations || (variables.breakGlassMember && '${breakGlassAnnotation}' in variables.newAnnotations)`,
        messageExpression: `variables.target.kind + ' ' + (has(variables.target.metadata.namespace) ? variables.target.metadata.namespace + '/' : '') + variables.target.metadata.name + ' is declared in Git (' + ('${gitFileAnnotation}' in variables.targetAnnotations ? variables.targetAnnotations['${gitFileAnnotation}'] : 'a Tidemark source') + ') and Tidemark prevents changes made outside Git: change it there. In an emergency a member of ${groups.join(', ') || 'no group'} may set the annotation ${breakGlassAnnotation} on it.'`,
        reason: 'Forbidden',
      }],
    },
  };
  const binding: KubernetesManifest = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: preventionPolicyName, labels },
    spec: {
      policyName: preventionPolicyName,
      validationActions: ['Deny'],
      matchResources: { objectSelector: { matchLabels: { [preventLabel]: 'true' } } },
    },
  };
  return [policy, binding];
}
