import { CliError, ExitCode } from './cli-error';

export type OutputFormat = 'table' | 'json';

/** Output is where a command writes: stdout, and whether colour is on (a TTY without NO_COLOR). */
export interface Output {
  format: OutputFormat;
  colour: boolean;
  write(text: string): void;
}

/** parseFormat checks `-o`: table (the default, for people) or json (stable, for scripts). */
export function parseFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === 'table') return 'table';
  if (value === 'json') return 'json';
  throw new CliError('UsageInvalid', `-o must be table or json, not "${value.slice(0, 40)}"`, ExitCode.Usage);
}

/** colourWanted: colour only on a terminal, and never when NO_COLOR is set (no-color.org). */
export function colourWanted(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}

const codes = { red: 31, green: 32, yellow: 33, blue: 34, grey: 90, bold: 1 } as const;
export type Colour = keyof typeof codes;

/** paint wraps text in an ANSI colour when colour is on. */
export function paint(output: Pick<Output, 'colour'>, colour: Colour, text: string): string {
  return output.colour ? `\u001b[${codes[colour]}m${text}\u001b[0m` : text;
}

/** stateColour is the colour of a state word, as the dashboard shows it. */
export function stateColour(state: string): Colour {
  if (['Ready', 'True', 'Available', 'created', 'ok'].includes(state)) return 'green';
  if (['Stalled', 'Failed', 'Unavailable', 'deleted', 'invalid', 'error'].includes(state)) return 'red';
  if (['Reconciling', 'Waiting', 'Progressing', 'configured', 'degraded'].includes(state)) return 'yellow';
  return 'grey';
}

/**
 * table lays rows out in columns separated by two spaces, like kubectl. Cells are measured
 * without their colour codes, so colouring never shifts a column.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const visible = (cell: string) => withoutColour(cell).length;
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => visible(row[column] ?? ''))));
  const line = (cells: readonly string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(widths[column]! - visible(cell)))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** withoutColour removes the ANSI colour codes that paint adds. */
export function withoutColour(text: string): string {
  // eslint-disable-next-line no-control-regex -- ESC is exactly what is being removed.
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/** printJson writes a value as indented JSON, the stable `-o json` form. */
export function printJson(output: Output, value: unknown): void {
  output.write(`${JSON.stringify(value, null, 2)}\n`);
}
