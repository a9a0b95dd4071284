// Summarises V8 CPU profiles (node --cpu-prof): the share of sampled time by function (self time)
// and by the script a function lives in, top entries first. Enough to see where a process spends
// its time without a GUI; GC and idle are their own entries, as V8 reports them.
//   npx tsx bench/support/cpu-profile-summary.ts FILE.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** selfTimes adds up each sample's time delta on the node it hit. */
export function selfTimes(profile: CpuProfile): Map<ProfileNode, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const times = new Map<ProfileNode, number>();
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    if (node) times.set(node, (times.get(node) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return times;
}

function scriptOf(url: string): string {
  if (!url) return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length).split('/').slice(0, url.includes('node_modules/@') ? 2 : 1).join('/');
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

function printTop(title: string, totals: Map<string, number>, all: number, top: number): void {
  console.log(title);
  for (const [name, time] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((time / all) * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
if (positionals.length === 0) throw new Error('Usage: cpu-profile-summary.ts FILE.cpuprofile [--top N]');
const top = Number(values.top);
for (const file of positionals) {
  const times = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const all = [...times.values()].reduce((sum, time) => sum + time, 0);
  const byFunction = new Map<string, number>();
  const byScript = new Map<string, number>();
  for (const [node, time] of times) {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${scriptOf(url)}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
    byScript.set(scriptOf(url), (byScript.get(scriptOf(url)) ?? 0) + time);
  }
  console.log(`${file}: ${(all / 1e6).toFixed(1)} s sampled`);
  printTop('self time by function', byFunction, all, top);
  printTop('self time by script or package', byScript, all, Math.min(top, 15));
}
