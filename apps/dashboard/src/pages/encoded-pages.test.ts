import { describe, expect, it } from 'vitest';
import { EncodedPages } from './encoded-pages';
import { layoutHead, layoutTail, type LayoutOptions } from './layout';

const main = [Buffer.from('<h1>Objects</h1>'), Buffer.from('<table></table>')];
const options: LayoutOptions = { title: 'Objects', nav: 'objects', live: 'cells' };

describe('EncodedPages', () => {
  it('puts the main part into the layout, keeping the page only from its second request on', () => {
    const pages = new EncodedPages();
    const first = pages.page(options, main);
    expect(first.toString()).toBe(`${layoutHead(options).value}<h1>Objects</h1><table></table>${layoutTail.value}`);
    expect(pages.isKept(options, main)).toBe(false);
    const second = pages.page(options, main);
    expect(second.equals(first)).toBe(true);
    expect(pages.isKept(options, main)).toBe(true);
    // Kept: sent as it is, not copied again.
    expect(pages.page(options, main)).toBe(second);
  });

  it('keeps pages per head, at most headsPerMain of them', () => {
    const pages = new EncodedPages(2);
    const heads = ['a', 'b', 'c'].map((title): LayoutOptions => ({ ...options, title }));
    for (const head of heads) {
      pages.page(head, main);
      pages.page(head, main);
    }
    expect(heads.map((head) => pages.isKept(head, main))).toEqual([false, true, true]);
  });
});
