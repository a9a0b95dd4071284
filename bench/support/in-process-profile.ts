// A V8 CPU profile of one phase of a bench, taken in its own process through the inspector (what
// `node --cpu-prof` writes, for a window rather than the whole run). Read it with
// bench/support/cpu-profile-window.ts.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/** profiledDuring runs `work`; with a `file`, it writes the CPU profile of the process while `work` ran there. */
export async function profiledDuring<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (file === undefined) return work();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    // 1 ms sampling, as `node --cpu-prof` does by default.
    await session.post('Profiler.setSamplingInterval', { interval: 1000 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    return result;
  } finally {
    session.disconnect();
  }
}
