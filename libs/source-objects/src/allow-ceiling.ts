import type { SourceAllow } from '@tidemark/git-source';

/**
 * narrowAllow gives what both a Source's own allow-list and the operator's ceiling allow: a Source
 * can only narrow the ceiling, never widen it. Without a list of its own a Source gets the ceiling.
 *
 * For each pair of patterns the narrower one is kept when one contains the other; a pair that only
 * overlaps (`team-*` and `*-prod`) cannot be written as one pattern and is dropped, so the result
 * is never wider than either list (it may be narrower: fail closed). denyKinds add up;
 * createNamespaces needs both.
 */
export function narrowAllow(own: SourceAllow | undefined, ceiling: SourceAllow | undefined): SourceAllow | undefined {
  if (!ceiling) return own;
  if (!own) return ceiling;
  return Object.freeze({
    namespaces: both(own.namespaces, ceiling.namespaces, globWithin),
    kinds: both(own.kinds, ceiling.kinds, kindWithin),
    denyKinds: Object.freeze([...new Set([...own.denyKinds, ...ceiling.denyKinds])]),
    clusterKinds: both(own.clusterKinds, ceiling.clusterKinds, kindWithin),
    clusters: both(own.clusters, ceiling.clusters, globWithin),
    createNamespaces: own.createNamespaces && ceiling.createNamespaces,
    serviceAccounts: both(own.serviceAccounts, ceiling.serviceAccounts, pairWithin),
  });
}

/**
 * keepServiceAccountsIn narrows allow.serviceAccounts to one namespace: a pattern whose namespace
 * part matches it is kept for that namespace only, any other dropped. A ceiling written for every
 * team (namespace `team-*`, name `deployer`) then lets each Source's Placement rules name its own team's only.
 */
export function keepServiceAccountsIn(allow: SourceAllow | undefined, namespace: string): SourceAllow | undefined {
  if (!allow) return allow;
  const kept = new Set<string>();
  for (const pattern of allow.serviceAccounts) {
    const [patternNamespace, name] = split(pattern);
    if (globWithin(namespace, patternNamespace)) kept.add(`${namespace}/${name}`);
  }
  return Object.freeze({ ...allow, serviceAccounts: Object.freeze([...kept]) });
}

function both(own: readonly string[], ceiling: readonly string[], within: (inner: string, outer: string) => boolean): readonly string[] {
  const kept = new Set<string>();
  for (const mine of own) {
    for (const allowed of ceiling) {
      if (within(mine, allowed)) kept.add(mine);
      else if (within(allowed, mine)) kept.add(allowed);
    }
  }
  return Object.freeze([...kept]);
}

/** globWithin: does every value `inner` matches also match `outer`? Decided conservatively (false when unsure). */
function globWithin(inner: string, outer: string): boolean {
  if (outer === '*' || inner === outer) return true;
  if (!inner.includes('*')) return globRegExp(outer).test(inner);
  const star = outer.indexOf('*');
  if (star < 0 || outer.indexOf('*', star + 1) >= 0) return false;
  // One `*` in outer: `prefix*suffix` holds whatever starts and ends so, with room for both.
  const prefix = outer.slice(0, star);
  const suffix = outer.slice(star + 1);
  return inner.startsWith(prefix) && inner.endsWith(suffix) && inner.length >= prefix.length + suffix.length;
}

/** kindWithin compares `Kind` (core group) or `group/Kind` patterns part by part; `*` alone is any kind of any group. */
function kindWithin(inner: string, outer: string): boolean {
  if (outer === '*') return true;
  if (inner === '*') return false;
  const [innerGroup, innerKind] = groupAndKind(inner);
  const [outerGroup, outerKind] = groupAndKind(outer);
  return globWithin(innerGroup, outerGroup) && globWithin(innerKind, outerKind);
}

/** pairWithin compares `namespace/name` ServiceAccount patterns part by part. */
function pairWithin(inner: string, outer: string): boolean {
  const [innerNamespace, innerName] = split(inner);
  const [outerNamespace, outerName] = split(outer);
  return globWithin(innerNamespace, outerNamespace) && globWithin(innerName, outerName);
}

function groupAndKind(pattern: string): [string, string] {
  return pattern.includes('/') ? split(pattern) : ['', pattern];
}

function split(pattern: string): [string, string] {
  const slash = pattern.indexOf('/');
  return [pattern.slice(0, slash), pattern.slice(slash + 1)];
}

function globRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}
