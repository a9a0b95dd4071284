import type { AllowList } from './allow-list';

/** SourceTenancy is what a source's tenancy settings tell the pipeline (SourceSpec.serviceAccount and .allow). */
export interface SourceTenancy {
  /** The ServiceAccount its objects are read, dry-run, applied and pruned as; undefined: the reconciler's own identity. */
  readonly serviceAccount?: { readonly namespace: string; readonly name: string };
  readonly allow?: AllowList;
  /**
   * Why the source may not act at all (a Source object without an identity): every run of its
   * objects is refused (IdentityRequired) before any request, never run as the reconciler.
   */
  readonly refused?: string;
}
