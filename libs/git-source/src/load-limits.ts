/** LoadLimits bound what one file in Git may cost to read; each limit is per file. */
export interface LoadLimits {
  /** Largest file read, in bytes. Kubernetes objects stay under etcd's 1.5 MiB. @defaultValue 2 MiB */
  maxFileBytes: number;
  /** Most YAML documents in one file. @defaultValue 1000 */
  maxDocuments: number;
  /** Deepest nesting of maps and lists (deep CRD schemas reach ~40). @defaultValue 100 */
  maxDepth: number;
  /** Most alias nodes (`*name`) in one file; also caps alias expansion. @defaultValue 100 */
  maxAliases: number;
  /**
   * Most YAML nodes in one file (scalars, flow collections, list items, and each `:`, `?` and `,`),
   * counted by the lexer before the parser builds anything: the parser costs about 200 bytes per node,
   * so this bounds what one file holds in memory while it is read (about 100 MiB). A 2 MiB file of
   * ordinary manifests counts about 250,000 (a `key: value` line is three).
   * @defaultValue 500,000
   */
  maxNodes: number;
}

export const defaultLoadLimits: Readonly<LoadLimits> = Object.freeze({
  maxFileBytes: 2 * 1024 * 1024,
  maxDocuments: 1000,
  maxDepth: 100,
  maxAliases: 100,
  maxNodes: 500_000,
});
