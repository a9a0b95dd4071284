import { sourceTooLarge } from './pack-size-guard';

/**
 * RevisionBudget keeps the bytes of a revision's manifest files, starting from its basis, and
 * refuses the revision (SourceTooLarge) as soon as their sum passes the source's budget.
 */
export class RevisionBudget {
  readonly sizes: Map<string, number>;
  total: number;

  constructor(
    basis: { fileBytes: ReadonlyMap<string, number>; totalBytes: number } | undefined,
    private readonly options: { source: string; maxRevisionBytes: number },
    private readonly revision: string,
  ) {
    this.sizes = new Map(basis?.fileBytes ?? []);
    this.total = basis?.totalBytes ?? 0;
  }

  set(path: string, bytes: number): void {
    this.total += bytes - (this.sizes.get(path) ?? 0);
    this.sizes.set(path, bytes);
    if (this.total > this.options.maxRevisionBytes) {
      throw sourceTooLarge(this.options.source, `revision ${this.revision.slice(0, 12)} holds more than ${Math.round(this.options.maxRevisionBytes / 1048576)} MiB of manifests (the budget), passed at ${path}`);
    }
  }

  remove(path: string): void {
    this.total -= this.sizes.get(path) ?? 0;
    this.sizes.delete(path);
  }
}
