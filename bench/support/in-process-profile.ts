// A V8 CPU profile of one phase of a bench, taken in its own process through the inspector (what
// `node --cpu-prof` writes, for a window rather than the whole run). Read it with
// bench/support/cpu-profile-window.ts.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/** RunningProfile is a CPU profile being taken; stop writes it to `file`. */
export interface RunningProfile {
  stop(file: string): Promise<void>;
}

/** startProfile starts a CPU profile of this process, sampled every 1 ms as `node --cpu-prof` does. */
export async function startProfile(): Promise<RunningProfile> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 1000 });
    await session.post('Profiler.start');
  } catch (error) {
    session.disconnect();
    throw error;
  }
  return {
    async stop(file) {
      try {
        const { profile } = await session.post('Profiler.stop');
        await writeFile(file, JSON.stringify(profile));
      } finally {
        session.disconnect();
      }
    },
  };
}

/** profiledDuring runs `work`; with a `file`, it writes the CPU profile of the process while `work` ran there. */
export async function profiledDuring<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (file === undefined) return work();
  const profile = await startProfile();
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await profile.stop(file).catch(() => undefined);
    throw error;
  }
  await profile.stop(file);
  return result;
}
