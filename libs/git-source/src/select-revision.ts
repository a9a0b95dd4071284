import semver from 'semver';
import type { SourceRef } from './source-spec';

/** AdvertisedRef is a ref as the server lists it; `peeled` is the commit behind an annotated tag. */
export interface AdvertisedRef {
  ref: string;
  oid: string;
  peeled?: string;
}

/** RemoteTarget is what a source follows right now: the full ref name and the commit it points at. */
export interface RemoteTarget {
  ref: string;
  /** The oid the ref advertises (an annotated tag's own oid for tags). */
  oid: string;
  /** The commit to read; equals oid except for annotated tags. */
  commit: string;
}

/** refPrefix is the narrowest prefix to ask the server for, to keep the advertisement small. */
export function refPrefix(ref: SourceRef): string | undefined {
  if ('branch' in ref) return `refs/heads/${ref.branch}`;
  if ('tag' in ref) return `refs/tags/${ref.tag}`;
  if ('semver' in ref) return 'refs/tags/';
  return undefined;
}

/**
 * selectRevision picks the target of a source from the advertised refs; undefined when the
 * branch or tag does not exist or no tag satisfies the range. A pinned commit needs no refs.
 */
export function selectRevision(ref: SourceRef, advertised: readonly AdvertisedRef[]): RemoteTarget | undefined {
  if ('commit' in ref) return { ref: ref.commit, oid: ref.commit, commit: ref.commit };
  if ('semver' in ref) return highestTag(ref.semver, advertised);
  // A digest names an OCI artifact; a Git source never has one (parseSourceSpec refuses it).
  if ('digest' in ref) return undefined;
  const wanted = 'branch' in ref ? `refs/heads/${ref.branch}` : `refs/tags/${ref.tag}`;
  const found = advertised.find((candidate) => candidate.ref === wanted);
  return found ? { ref: found.ref, oid: found.oid, commit: found.peeled ?? found.oid } : undefined;
}

function highestTag(range: string, advertised: readonly AdvertisedRef[]): RemoteTarget | undefined {
  let best: { version: string; target: RemoteTarget } | undefined;
  for (const candidate of advertised) {
    if (!candidate.ref.startsWith('refs/tags/') || candidate.ref.endsWith('^{}')) continue;
    const version = semver.valid(candidate.ref.slice('refs/tags/'.length));
    if (!version || !semver.satisfies(version, range)) continue;
    if (!best || semver.gt(version, best.version)) {
      best = { version, target: { ref: candidate.ref, oid: candidate.oid, commit: candidate.peeled ?? candidate.oid } };
    }
  }
  return best?.target;
}
