import { layoutHead, layoutTail, type LayoutOptions } from './layout';

const tail = Buffer.from(layoutTail.value);

/**
 * EncodedPages puts a main part kept encoded (in chunks) into the layout of a request, and keeps
 * the whole page with that main part for the last few heads (a head differs by user, role and
 * session only). A page kept for its main part is sent as it is: no copy of ~180 kB per request.
 * Pages live as long as their main part does (the caller's memo drops it when the data changes).
 */
export class EncodedPages {
  private readonly pages = new WeakMap<readonly Buffer[], Map<string, Buffer>>();

  /** headsPerMain: pages kept per main part, the oldest dropped first. @defaultValue 4 */
  constructor(private readonly headsPerMain = 4) {}

  /** page is the main part inside the layout of these options, encoded. */
  page(options: LayoutOptions, main: readonly Buffer[]): Buffer {
    const head = layoutHead(options).value;
    let byHead = this.pages.get(main);
    if (!byHead) this.pages.set(main, (byHead = new Map()));
    let page = byHead.get(head);
    if (!page) {
      if (byHead.size >= this.headsPerMain) byHead.delete(byHead.keys().next().value ?? '');
      page = Buffer.concat([Buffer.from(head), ...main, tail]);
      byHead.set(head, page);
    }
    return page;
  }
}
