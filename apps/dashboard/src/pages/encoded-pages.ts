import { layoutHead, layoutTail, type LayoutOptions } from './layout';

const tail = Buffer.from(layoutTail.value);

/**
 * EncodedPages puts a main part kept encoded (in chunks) into the layout of a request, and keeps
 * the whole page with that main part for the last few heads (a head differs by user, role and
 * session only). A page kept for its main part is sent as it is: no copy of ~70 kB per request.
 * A page is kept from the second time it is asked for: pages asked for once (viewers paging
 * through more pages than the caller's memo keeps) would only be held until the memo drops them,
 * long enough to leave the young generation, and cost a full garbage collection each to free.
 * Pages live as long as their main part does (the caller's memo drops it when the data changes).
 */
export class EncodedPages {
  /** By main part and head: the page, or null when it was asked for once and not kept. */
  private readonly pages = new WeakMap<readonly Buffer[], Map<string, Buffer | null>>();

  /** headsPerMain: pages kept per main part, the oldest dropped first. @defaultValue 4 */
  constructor(private readonly headsPerMain = 4) {}

  /** page is the main part inside the layout of these options, encoded. */
  page(options: LayoutOptions, main: readonly Buffer[]): Buffer {
    const head = layoutHead(options).value;
    let byHead = this.pages.get(main);
    if (!byHead) this.pages.set(main, (byHead = new Map()));
    const kept = byHead.get(head);
    if (kept) return kept;
    const page = Buffer.concat([Buffer.from(head), ...main, tail]);
    if (kept === undefined && byHead.size >= this.headsPerMain) byHead.delete(byHead.keys().next().value ?? '');
    byHead.set(head, kept === undefined ? null : page);
    return page;
  }

  /** isKept tells whether the page of this main part and these options is kept (for tests). */
  isKept(options: LayoutOptions, main: readonly Buffer[]): boolean {
    return Boolean(this.pages.get(main)?.get(layoutHead(options).value));
  }
}
