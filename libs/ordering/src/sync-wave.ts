/** syncWaveAnnotation orders objects within one source revision: wave n+1 starts when wave n is Ready. */
export const syncWaveAnnotation = 'tidemark.dev/sync-wave';

const wavePattern = /^[-+]?\d{1,6}$/;

/** parseSyncWave reads the annotation (absent: wave 0); throws an Error for anything but a whole number. */
export function parseSyncWave(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!wavePattern.test(value.trim())) throw new Error(`"${value.slice(0, 40)}" is not a sync wave: write a whole number such as "-1", "0" or "2".`);
  return Number.parseInt(value.trim(), 10);
}
