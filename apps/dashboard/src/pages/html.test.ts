import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw } from './html';

describe('html', () => {
  it('escapes every interpolated value, in content and attributes', () => {
    const name = `<img src=x onerror="alert('x')">&`;
    expect(html`<td title="${name}">${name}</td>`.value).toBe('<td title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</td>');
  });

  it('keeps nested html and raw markup, joins arrays, and drops undefined, null and false', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}${undefined}${null}${false}${raw('<hr>')}</ul>`.value).toBe('<ul><li>&lt;a&gt;</li><li>b</li><hr></ul>');
    expect(html`${0} ${true}`.value).toBe('0 true');
  });

  it('escapeHtml escapes the five characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
