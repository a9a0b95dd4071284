/**
 * compareResourceVersions orders two resourceVersions of the same kind: negative when `a` is
 * older, 0 when equal, positive when newer, undefined when they cannot be compared. Kubernetes
 * 1.35 made this ordering part of the API (KEP-5504): a version is a decimal integer without
 * leading zeros, so a longer one is newer and one of equal length compares as text. Anything
 * else (an aggregated API's own versions) is incomparable, and a caller then trusts nothing.
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (!isComparable(a) || !isComparable(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function isComparable(version: string | undefined): version is string {
  return typeof version === 'string' && /^[1-9][0-9]*$/.test(version);
}
