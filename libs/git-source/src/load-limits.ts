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
}

export const defaultLoadLimits: Readonly<LoadLimits> = Object.freeze({
  maxFileBytes: 2 * 1024 * 1024,
  maxDocuments: 1000,
  maxDepth: 100,
  maxAliases: 100,
});
