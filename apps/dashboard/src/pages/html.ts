/** SafeHtml is markup that is already escaped; only `html` and `raw` make one. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** escapeHtml escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  // Most values (names, numbers, revisions) need nothing: test first, replace only when needed.
  return needsEscape.test(text) ? text.replace(/[&<>"']/g, (char) => entities[char] ?? char) : text;
}

const needsEscape = /[&<>"']/;

type Interpolation = SafeHtml | string | number | boolean | undefined | null | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'number') return String(value);
  return escapeHtml(String(value));
}

/**
 * html is the only way pages build markup: every interpolated value is escaped unless it is
 * SafeHtml, so forgetting to escape is not possible by accident.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** raw marks trusted, constant markup (never user or cluster data). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
