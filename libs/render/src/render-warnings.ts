/** How many warnings one render keeps. */
export const maxRenderWarnings = 20;
/** How long one warning may be, in characters. */
export const maxRenderWarningLength = 300;

/**
 * renderWarnings turns what a successful render wrote to standard error into warnings a user
 * can read and that hold nothing secret: one per distinct line, without the tool's decoration
 * (Go source positions, `# Warning:`, `WARNING:`), with value dumps hidden (Helm prints a
 * values entry in parentheses, `(map[password:…])`), passed through `scrub` (decrypted values,
 * temporary paths), and bounded in number and length.
 */
export function renderWarnings(stderr: string, scrub: (line: string) => string): string[] {
  const warnings: string[] = [];
  for (const raw of stderr.split('\n')) {
    const line = scrub(hideValues(undecorated(raw.trim())));
    if (!line || warnings.includes(line)) continue;
    warnings.push(line.length > maxRenderWarningLength ? `${line.slice(0, maxRenderWarningLength - 1)}…` : line);
    if (warnings.length === maxRenderWarnings) break;
  }
  return warnings;
}

function undecorated(line: string): string {
  return line.replace(/^[\w.-]+\.go:\d+:\s*/, '').replace(/^#\s*/, '').replace(/^warning:\s*/i, '').trim();
}

/** hideValues replaces what a tool quotes of the values (parenthesised, or a Go map) with a placeholder. */
function hideValues(line: string): string {
  return line.replace(/\(.*\)/, '(value hidden)').replace(/map\[.*\]/, '(value hidden)');
}
