// semver 7 ships no types; these are the calls we make (semver's documented API).
declare module 'semver' {
  interface Semver {
    valid(version: string): string | null;
    validRange(range: string): string | null;
    satisfies(version: string, range: string): boolean;
    gt(left: string, right: string): boolean;
  }
  const semver: Semver;
  export default semver;
}
