// Runs every bench/*.bench.ts one after another, collects the JSON line each prints, and writes
// one report: bench/results/report.md (a table: figure, value, baseline, baseline value, ratio)
// and bench/results/report.json. Every figure comes with its baseline from the same run.
//   npm run bench                      # all of them
//   npm run bench -- --only drift,e2e  # a few (file names without .bench.ts)
import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ratioText, type Figure } from './support/figures';
import { toFigures } from './support/adapt-figures';

const { values } = parseArgs({ options: { only: { type: 'string' }, 'timeout-minutes': { type: 'string', default: '8' } } });
const here = dirname(fileURLToPath(import.meta.url));
const timeoutMs = Number(values['timeout-minutes']) * 60_000;
/**
 * longerLimits: benches that need more than --timeout-minutes. scale starts three API servers and
 * pushes 300 × 3 objects, then waits two resync intervals and runs its raw-SSA baseline: on 2 shared
 * cores at load 20+ that passes 8 minutes (the 1,000 × 3 run took 10). agents-fleet starts 50 agents
 * and waits two resync intervals per fleet size.
 */
const longerLimits: Record<string, number> = { scale: 30 * 60_000, 'agents-fleet': 30 * 60_000 };

interface BenchRun {
  bench: string;
  status: 'ok' | 'failed' | 'timed out';
  durationMs: number;
  figures: Figure[];
  /** The JSON lines the bench printed, as printed. */
  results: unknown[];
  error?: string;
}

function runOne(file: string): Promise<BenchRun> {
  const bench = file.replace(/\.bench\.ts$/, '');
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, file)], { cwd: join(here, '..'), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const results: unknown[] = [];
    let stderrTail = '';
    let buffered = '';
    const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* already gone */ } }, Math.max(timeoutMs, longerLimits[bench] ?? 0));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        process.stdout.write(`  ${bench} │ ${line}\n`);
        if (line.startsWith('{"bench"')) results.push(JSON.parse(line) as unknown);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk.toString().replace(/^(?=.)/gm, `  ${bench} ┆ `));
      stderrTail = (stderrTail + chunk.toString()).slice(-2_000);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const status = signal ? 'timed out' : code === 0 ? 'ok' : 'failed';
      resolve({ bench, status, durationMs: Math.round(performance.now() - started), figures: results.flatMap(toFigures), results, ...(status === 'ok' ? {} : { error: stderrTail.trim().split('\n').slice(-5).join(' / ') }) });
    });
  });
}

function markdown(runs: readonly BenchRun[], startedAt: string): string {
  const cell = (text: string | number) => String(text).replaceAll('|', '\\|');
  const rows = runs.flatMap((run) => run.figures.map((entry) => `| ${cell(run.bench)} | ${cell(entry.name)} | ${cell(`${entry.value} ${entry.unit}`)} | ${cell(entry.baseline)} | ${cell(`${entry.baselineValue} ${entry.unit}`)} | ${ratioText(entry)} |`));
  const problems = runs.filter((run) => run.status !== 'ok').map((run) => `- **${run.bench}** ${run.status} after ${Math.round(run.durationMs / 1000)} s: ${run.error ?? ''}`);
  return [
    '# Benchmark report',
    '',
    `Run ${startedAt} on ${cpus().length} cores (load average at the end ${loadavg().map((value) => value.toFixed(1)).join(' / ')}). Every baseline was measured in the same run; ratio = value / baseline value, and each row says whether higher or lower is better (a rate is better higher, a time or a count lower).`,
    '',
    '| bench | figure | value | baseline | baseline value | ratio |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '| bench | status | time |',
    '|---|---|---|',
    ...runs.map((run) => `| ${run.bench} | ${run.status} | ${Math.round(run.durationMs / 1000)} s |`),
    ...(problems.length > 0 ? ['', '## Problems', '', ...problems] : []),
    '',
  ].join('\n');
}

const only = values.only ? new Set(values.only.split(',').map((name) => name.trim())) : undefined;
const files = (await readdir(here)).filter((file) => file.endsWith('.bench.ts') && (!only || only.has(file.replace(/\.bench\.ts$/, '')))).sort();
const startedAt = new Date().toISOString();
const runs: BenchRun[] = [];
for (const [index, file] of files.entries()) {
  process.stderr.write(`[${index + 1}/${files.length}] ${file}\n`);
  runs.push(await runOne(file));
}
const out = join(here, 'results');
await mkdir(out, { recursive: true });
await writeFile(join(out, 'report.json'), `${JSON.stringify({ startedAt, cores: cpus().length, loadAverage: loadavg(), runs }, null, 2)}\n`);
await writeFile(join(out, 'report.md'), markdown(runs, startedAt));
process.stderr.write(`wrote ${join(out, 'report.md')} and report.json\n`);
process.exitCode = runs.every((run) => run.status === 'ok') ? 0 : 1;
