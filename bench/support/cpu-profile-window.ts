// cpu-profile-window: where a V8 CPU profile (node --cpu-prof) spent its time, optionally only in its
// last seconds (bench/scale --cpu-prof stops the reconciler right after the steady state):
//   npx tsx bench/support/cpu-profile-window.ts <file.cpuprofile>... [--last-s 40] [--top 30]
// (without --last-s, the whole profile: bench/dashboard --cpu-prof writes one per process).
// Prints self time by package (node_modules/<package>, libs/<lib>, node: internals, GC), then the
// functions with the most self and the most inclusive time (a function counted once per sample).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'last-s': { type: 'string' }, top: { type: 'string', default: '30' } } });
if (positionals.length === 0) throw new Error('usage: cpu-profile-window.ts <file.cpuprofile>... [--last-s N] [--top N]');
const top = Number(values.top);
for (const file of positionals) summarise(file, JSON.parse(await readFile(file, 'utf8')) as CpuProfile);

/** summarise prints where one profile spent its busy time, in the window --last-s asks for. */
function summarise(file: string, profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Sample times: startTime plus the running sum of deltas (µs).
  const windowStart = values['last-s'] === undefined ? -Infinity : profile.endTime - Number(values['last-s']) * 1e6;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  let time = profile.startTime;
  let total = 0;
  for (let index = 0; index < profile.samples.length; index += 1) {
    time += profile.timeDeltas[index] ?? 0;
    if (time < windowStart) continue;
    const weight = profile.timeDeltas[index + 1] ?? 0;
    const leaf = byId.get(profile.samples[index]!)!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    total += weight;
    add(self, label(leaf.callFrame), weight);
    add(packages, packageOf(leaf.callFrame), weight);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const name = label(byId.get(id)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, weight);
    }
  }
  console.log(`${file}: busy CPU in the window: ${(total / 1e6).toFixed(2)} s (idle excluded)`);
  print('self time by package', packages, total);
  print('self time by function', self, total);
  print('inclusive time by function', inclusive, total);
}

/** packageOf names where a frame's code lives. */
function packageOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  const lib = /\/(libs|apps)\/([^/]+)\//.exec(url);
  if (lib) return `${lib[1]}/${lib[2]}`;
  return url.replace(/^.*\//, '');
}

function label(frame: ProfileNode['callFrame']): string {
  return `${frame.functionName || '(anonymous)'} ${packageOf(frame)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

function add(map: Map<string, number>, key: string, weight: number): void {
  map.set(key, (map.get(key) ?? 0) + weight);
}

function print(title: string, map: Map<string, number>, total: number): void {
  console.log(`\n${title}`);
  for (const [name, weight] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(weight / 1e6).toFixed(2).padStart(8)} s ${((weight / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
  }
}
