// CPU time of processes from /proc (Linux): what a phase of a bench cost each side, so a ratio of
// rates can be read as the ratio of the work behind them.
import { readFile } from 'node:fs/promises';

/** cpuSeconds is the user + system CPU time a process has used (clock ticks are 1/100 s on Linux). */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** PhaseCpu is the CPU seconds the API server and this process spent in one phase. */
export interface PhaseCpu {
  apiServer: number;
  self: number;
  /** This process's CPU seconds while `work` ran, without the wait for a quiet API server after it (where this process only idles). */
  work: number;
}

/**
 * cpuDuring waits until the API server is quiet, runs `work`, and waits until the API server is
 * quiet again before it reads the clocks: what a phase sets going (watch dispatch, the conversions
 * of each served version's cache) is that phase's cost, not the next one's.
 */
export async function cpuDuring<T>(apiServerPid: number, work: () => Promise<T>): Promise<{ result: T; cpu: PhaseCpu }> {
  await quiet(apiServerPid);
  const [apiBefore, selfBefore] = [await cpuSeconds(apiServerPid), process.cpuUsage()];
  const result = await work();
  const working = process.cpuUsage(selfBefore);
  await quiet(apiServerPid);
  const self = process.cpuUsage(selfBefore);
  const apiServer = (await cpuSeconds(apiServerPid)) - apiBefore;
  return { result, cpu: { apiServer, self: (self.user + self.system) / 1e6, work: (working.user + working.system) / 1e6 } };
}

/** quiet waits until a process used under a tenth of a core in each of two 200 ms windows in a row (at most 10 s). */
async function quiet(pid: number): Promise<void> {
  let calm = 0;
  let last = await cpuSeconds(pid);
  for (let waited = 0; calm < 2 && waited < 10_000; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = await cpuSeconds(pid);
    calm = now - last <= 0.02 ? calm + 1 : 0;
    last = now;
  }
}
