// The one output format every benchmark prints last: a JSON line that run-all.ts collects.

/** Figure is one measured value beside its baseline from the same run. */
export interface Figure {
  name: string;
  unit: string;
  value: number;
  baseline: string;
  baselineValue: number;
  /** value / baselineValue. */
  ratio: number;
}

export function figure(name: string, unit: string, value: number, baseline: string, baselineValue: number): Figure {
  return { name, unit, value: round(value), baseline, baselineValue: round(baselineValue), ratio: baselineValue === 0 ? 0 : round(value / baselineValue, 3) };
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
  for (const entry of figures) console.log(`${entry.name}: ${entry.value} ${entry.unit} | ${entry.baseline}: ${entry.baselineValue} ${entry.unit} | ratio ${entry.ratio}`);
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
