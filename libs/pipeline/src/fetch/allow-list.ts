import type { SourceAllowList } from '@tidemark/contracts';

/** AllowList is a source's allow-list (SourceSpec.allow). */
export type AllowList = SourceAllowList;

/** AllowTarget is one object on one cluster; `namespace` is undefined for a cluster-scoped kind. */
export interface AllowTarget {
  cluster: string;
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
  name: string;
}

/**
 * refusalOf checks one object against a source's allow-list before any request is made for it.
 * It returns the sentence naming the rule that refuses it, or undefined when it is allowed.
 */
export function refusalOf(allow: AllowList, target: AllowTarget): string | undefined {
  const kind = kindName(target.apiVersion, target.kind);
  if (!allow.clusters.some((pattern) => matches(pattern, target.cluster))) {
    return `cluster ${target.cluster} is not in allow.clusters (${list(allow.clusters)})`;
  }
  const denied = allow.denyKinds.find((pattern) => kindMatches(pattern, kind));
  if (denied) return `kind ${kind} matches allow.denyKinds "${denied}"`;
  if (kind === 'Namespace') return namespaceRefusal(allow, target.name);
  if (target.namespace === undefined) {
    return allow.clusterKinds.some((pattern) => kindMatches(pattern, kind))
      ? undefined
      : `${kind} is cluster-scoped and not in allow.clusterKinds (${list(allow.clusterKinds)})`;
  }
  if (!allow.namespaces.some((pattern) => matches(pattern, target.namespace ?? ''))) {
    return `namespace ${target.namespace} is not in allow.namespaces (${list(allow.namespaces)})`;
  }
  if (!allow.kinds.some((pattern) => kindMatches(pattern, kind))) return `kind ${kind} is not in allow.kinds (${list(allow.kinds)})`;
  return undefined;
}

function namespaceRefusal(allow: AllowList, name: string): string | undefined {
  if (!allow.createNamespaces) return `Namespace ${name}: allow.createNamespaces is false`;
  if (!allow.namespaces.some((pattern) => matches(pattern, name))) return `Namespace ${name} is not in allow.namespaces (${list(allow.namespaces)})`;
  return undefined;
}

/**
 * serviceAccountRefusal checks the ServiceAccount a Placement rule names against the source's
 * allow.serviceAccounts (`namespace/name` patterns). A source without an allow-list may name none:
 * its Git authors would otherwise choose any identity the reconciler may impersonate.
 */
export function serviceAccountRefusal(allow: AllowList | undefined, serviceAccount: { namespace: string; name: string }): string | undefined {
  const name = `${serviceAccount.namespace}/${serviceAccount.name}`;
  if (!allow) return `the source has no allow-list, so no Placement rule may choose its identity (list ${name} in allow.serviceAccounts)`;
  const listed = allow.serviceAccounts.some((pattern) => {
    const [namespace, account] = splitOnce(pattern);
    return matches(namespace, serviceAccount.namespace) && matches(account, serviceAccount.name);
  });
  return listed ? undefined : `${name} is not in allow.serviceAccounts (${list(allow.serviceAccounts)})`;
}

/** kindName writes a kind as the allow-list does: `Kind` for the core group, else `group/Kind`. */
export function kindName(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? kind : `${apiVersion.slice(0, slash)}/${kind}`;
}

function kindMatches(pattern: string, kind: string): boolean {
  if (pattern === '*') return true;
  const [patternGroup, patternKind] = pattern.includes('/') ? splitOnce(pattern) : ['', pattern];
  const [group, name] = kind.includes('/') ? splitOnce(kind) : ['', kind];
  return matches(patternGroup, group) && matches(patternKind, name);
}

function splitOnce(text: string): [string, string] {
  const slash = text.indexOf('/');
  return [text.slice(0, slash), text.slice(slash + 1)];
}

/** matches is a glob where `*` stands for any run of characters (and nothing else is special). */
export function matches(pattern: string, value: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === value;
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last)) return false;
  let at = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, at);
    if (found < 0 || found + middle.length > value.length - last.length) return false;
    at = found + middle.length;
  }
  return true;
}

function list(patterns: readonly string[]): string {
  return patterns.length === 0 ? 'none' : patterns.join(', ');
}
