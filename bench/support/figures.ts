// The one output format every benchmark prints last: a JSON line that run-all.ts collects.

/** Which way a figure improves: a rate (objects/s) is better higher, a time or a count lower. */
export type Better = 'higher' | 'lower';

/** Figure is one measured value beside its baseline from the same run. */
export interface Figure {
  name: string;
  unit: string;
  value: number;
  baseline: string;
  baselineValue: number;
  /** value / baselineValue; null when the baseline is 0 (no ratio exists, it is not 0). */
  ratio: number | null;
  /** Whether a higher or a lower ratio is the better one, said in every report row. */
  better: Better;
}

/** betterFor: a unit per second is a rate (higher is better); anything else is a cost (lower is better). */
export function betterFor(unit: string): Better {
  return unit.endsWith('/s') ? 'higher' : 'lower';
}

/** figure builds a Figure; which way is better follows from the unit (betterFor). */
export function figure(name: string, unit: string, value: number, baseline: string, baselineValue: number): Figure {
  const better = betterFor(unit);
  const ratio = baselineValue === 0 || !Number.isFinite(baselineValue) || !Number.isFinite(value) ? null : round(value / baselineValue, 3);
  return { name, unit, value: shown(value), baseline, baselineValue: shown(baselineValue), ratio, better };
}

/** shown rounds a figure to one decimal, or to two significant digits below 1, so 0.03 ms is not printed as 0. */
export function shown(value: number): number {
  if (!Number.isFinite(value) || value === 0 || Math.abs(value) >= 1) return round(value);
  return Number(value.toPrecision(2));
}

/** ratioText prints a ratio with its direction, e.g. `0.412 (higher is better)`, or `n/a` without a baseline. */
export function ratioText(entry: Pick<Figure, 'ratio' | 'better'>): string {
  return entry.ratio === null ? 'n/a (baseline 0)' : `${entry.ratio} (${entry.better} is better)`;
}

export function round(value: number, digits = 1): number {
  return Number(value.toFixed(digits));
}

/** percentile by nearest rank; `sorted` ascending. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

export function sortedCopy(samples: readonly number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}

/** say prints progress to stderr, so stdout stays the bench's result. */
export function say(line: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** printFigures prints a human table and the JSON line run-all.ts reads. */
export function printFigures(bench: string, figures: readonly Figure[], extra: Record<string, unknown> = {}): void {
  for (const entry of figures) console.log(`${entry.name}: ${entry.value} ${entry.unit} | ${entry.baseline}: ${entry.baselineValue} ${entry.unit} | ratio ${ratioText(entry)}`);
  console.log(JSON.stringify({ bench, figures, ...extra }));
}

/** pool runs `work` on every item with at most `concurrency` at once. */
export async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
