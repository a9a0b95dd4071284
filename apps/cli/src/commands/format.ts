/** short is the first 7 characters of a commit id, or a dash. */
export function short(revision: string | undefined): string {
  return revision ? revision.slice(0, 7) : '-';
}

/** age says how long ago a time was, like kubectl's AGE column (5s, 3m, 2h, 4d). */
export function age(time: string | undefined, now: number = Date.now()): string {
  if (!time) return '-';
  const seconds = Math.max(0, Math.round((now - Date.parse(time)) / 1000));
  if (!Number.isFinite(seconds)) return '-';
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

/** value prints a drift value on one line, cut to a width. */
export function value(input: unknown, width = 60): string {
  const text = input === undefined ? '(absent)' : typeof input === 'string' ? input : JSON.stringify(input);
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** indent moves every non-empty line of a block two spaces in, under its heading. */
export function indent(text: string): string {
  return text.split('\n').map((line) => (line ? `  ${line}` : line)).join('\n');
}
