// The reconciler as a process, as the image runs it: its bundle (scripts/build.mjs), the node flags of the
// image's ENTRYPOINT, and its memory read from /proc and from its own /metrics. Shared by the benches that
// measure the built reconciler from outside (scale, crd-push).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stopProcess } from '@tidemark/testing';

/** procStatus reads VmRSS and VmHWM (KiB) of a process. */
export async function procStatus(pid: number): Promise<{ rss: number; peak: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** bareNodeRss is the RSS (KiB) of a bare `node -e` that only waits, read once it settled. */
export async function bareNodeRss(): Promise<number> {
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    return (await procStatus(bare.pid!)).rss;
  } finally {
    await stopProcess(bare);
  }
}

/**
 * buildReconcilerBundle bundles the apps as the images do (scripts/build.mjs) into `outdir`, inside
 * the repository so that the bundle's npm imports resolve from its node_modules, and returns the reconciler's.
 */
export async function buildReconcilerBundle(outdir: string): Promise<string> {
  await new Promise<void>((done, fail) => {
    const build = spawn(process.execPath, ['scripts/build.mjs', '--outdir', outdir], { stdio: ['ignore', 'ignore', 'inherit'] });
    build.once('exit', (code) => (code === 0 ? done() : fail(new Error(`scripts/build.mjs exited with ${code}`))));
  });
  await writeFile(join(outdir, 'package.json'), '{ "type": "module" }\n');
  return join(outdir, 'reconciler', 'main.js');
}

/** imageNodeFlags are the node flags of the reconciler image's ENTRYPOINT: ["node", ...flags, "/app/dist/main.js"]. */
export async function imageNodeFlags(): Promise<string[]> {
  const dockerfile = await readFile('deploy/docker/reconciler.Dockerfile', 'utf8');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!entrypoint) throw new Error('deploy/docker/reconciler.Dockerfile has no ENTRYPOINT ["node", ...] line');
  const words = JSON.parse(entrypoint) as string[];
  return words.slice(1, -1);
}

/** freePort is a loopback port nothing listens on, for the reconciler's /metrics. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * memorySplit reads the reconciler's own account of its memory from /metrics (prom-client's
 * process.memoryUsage() and V8 heap-space gauges), in MiB: where RSS goes beyond the heap.
 */
export async function memorySplit(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const gauge = (name: string) => Number(new RegExp(`^tidemark_reconciler_${name} ([0-9.e+]+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
  const space = (name: string) => Number(new RegExp(`^tidemark_reconciler_nodejs_heap_space_size_total_bytes\\{space="${name}"\\} ([0-9.e+]+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
  const split = {
    heapUsed: gauge('nodejs_heap_size_used_bytes'), heapTotal: gauge('nodejs_heap_size_total_bytes'), external: gauge('nodejs_external_memory_bytes'),
    newSpace: space('new'), oldSpace: space('old'), codeSpace: space('code'), largeObjectSpace: space('large_object'),
  };
  return Object.fromEntries(Object.entries(split).map(([key, value]) => [key, Math.round(value * 10) / 10]));
}
