/**
 * VersionMemo keeps the values of the last few keys for one version of the status cache: the
 * first read after the data changed empties it. A write bumps the version at most once per live
 * batch, so between writes every request for the same key shares one computation.
 */
export class VersionMemo<T> {
  private readonly entries = new Map<string, T>();
  private version = -1;

  /** capacity: keys kept, the oldest dropped first. @defaultValue 16 */
  constructor(private readonly currentVersion: () => number, private readonly capacity = 16) {}

  get(key: string): T | undefined {
    if (this.version !== this.currentVersion()) {
      this.entries.clear();
      this.version = this.currentVersion();
    }
    return this.entries.get(key);
  }

  set(key: string, value: T): T {
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value ?? '');
    this.entries.set(key, value);
    return value;
  }

  /** getOrCompute answers from the memo, or computes, keeps and returns the value. */
  getOrCompute(key: string, compute: () => T): T {
    return this.get(key) ?? this.set(key, compute());
  }
}
