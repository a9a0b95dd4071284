/** healthTimeoutAnnotation is how long an object may take to become Ready, as a duration: 90s, 5m, 1h30m. */
export const healthTimeoutAnnotation = 'tidemark.dev/health-timeout';

const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const durationPattern = /^(\d{1,6}(ms|s|m|h))+$/;
/** The longest timeout an annotation may set; a longer wait is a resync's job. */
const maximumMs = 24 * 3_600_000;

/**
 * parseHealthTimeout reads the annotation: undefined when absent, else milliseconds. Throws an Error
 * saying the form for anything else (a bare number, a negative or zero duration, more than 24h).
 */
export function parseHealthTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!durationPattern.test(text)) throw new Error(`"${value.slice(0, 40)}" is not a duration: write a number and a unit, such as "90s", "5m" or "1h30m".`);
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h)/g)) total += Number(amount) * units[unit!]!;
  if (total <= 0 || total > maximumMs) throw new Error(`"${text}" is out of range: a health timeout is more than 0 and at most 24h.`);
  return total;
}

/** formatDuration says a duration the way the annotation is written, to the second: 2m5s, 1h0m30s, 0s. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1_000));
  const hours = Math.floor(seconds / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours}h${minutes}m${rest}s`;
  return minutes > 0 ? `${minutes}m${rest}s` : `${rest}s`;
}
