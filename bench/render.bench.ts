// Issue 18 point 8: the render cost of a change to one overlay of a 200-unit Kustomize repository
// (Tidemark plans every unit, finds the one whose inputs changed, writes its input tree from the
// Git object store and runs the sandboxed kustomize), against `kustomize build` of that overlay
// run directly on a checkout, in the same run. A no-op poll must render nothing.
// Both sides are spawned by this process (so both pay the same fork of its memory), and the
// baseline runs before the poll in even rounds and after it in odd ones, so neither side always
// follows the push and fetch. The machine may be loaded: the spread of both sides is printed,
// with the load average, and plan (every unit's inputs and digest) is told apart from the rest
// (the unit's input tree written, kustomize in its sandbox, its output parsed).
// Tidemark runs kustomize in a sandbox started ahead (SandboxLauncher: unshare's fresh user and
// network namespace and a shell waiting for the command), so the render pays one exec where the
// baseline pays a fork of this process and the exec; the next sandbox starts after the render
// returns, outside its figure (inside the whole poll's); the bench then waits 200 ms, so that
// start never overlaps the baseline of odd rounds. The renderer is closed at the end.
// Run: npx tsx bench/render.bench.ts [rounds]
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { builtinRenderers, RendererRegistry, UnitRenderer } from '@tidemark/render';
import { buildRenderTools, run, type WorkingCopy } from '@tidemark/testing';
import { median, openBenchRepository, timed } from './support/git-bench-repository';

/** spread is the least, median and largest sample, in whole tenths of a millisecond. */
const spread = (values: readonly number[]) => ({ min: +Math.min(...values).toFixed(1), median: +median(values).toFixed(1), max: +Math.max(...values).toFixed(1) });
const load = () => loadavg().map((value) => +value.toFixed(1));

const rounds = Number(process.argv[2] ?? 10);
const units = 200;

const overlay = (unit: number, replicas: number) => [
  `namespace: team-${unit % 20}`, `namePrefix: app-${unit}-`, 'resources:', '  - ../../base', '  - settings.yaml',
  'replicas:', '  - name: web', `    count: ${replicas}`, 'images:', '  - name: nginx', `    newTag: "1.${unit % 30}"`, '',
].join('\n');

async function generate(copy: WorkingCopy): Promise<void> {
  await copy.write('base/deployment.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n');
  await copy.write('base/service.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n');
  await copy.write('base/kustomization.yaml', 'resources: [deployment.yaml, service.yaml]\nconfigMapGenerator:\n  - name: web-config\n    literals: [MODE=base]\n');
  await Promise.all(Array.from({ length: units }, async (_, unit) => {
    await copy.write(`apps/app-${unit}/kustomization.yaml`, overlay(unit, 1));
    await copy.write(`apps/app-${unit}/settings.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  unit: "${unit}"\n`);
  }));
}

const tools = await buildRenderTools();
const kustomize = join(tools, 'kustomize');
const renderer = new UnitRenderer({ registry: new RendererRegistry(builtinRenderers), tools: { kustomize, helm: join(tools, 'helm'), sops: join(tools, 'sops') } });
const repository = await openBenchRepository('bench-render', generate, { renderer });
try {
  const { copy, source } = repository;
  const initial = await timed(() => source.poll());
  if (initial.value.render?.rendered !== units || initial.value.errors.length > 0) throw new Error(`initial poll rendered ${initial.value.render?.rendered} units, errors: ${JSON.stringify(initial.value.errors.slice(0, 2))}`);
  process.stderr.write(`render bench: ${units} units rendered in ${Math.round(initial.ms)} ms\n`);

  const loadBefore = load();
  const samples = { tidemark: [] as number[], plan: [] as number[], direct: [] as number[], poll: [] as number[], noop: [] as number[] };
  for (let round = 0; round < rounds; round += 1) {
    const unit = (round * 37) % units;
    await copy.write(`apps/app-${unit}/kustomization.yaml`, overlay(unit, round + 2));
    await copy.commitAndPush(`round ${round}: app-${unit}`);
    const direct = () => timed(() => run(kustomize, ['build', join(copy.dir, `apps/app-${unit}`)]));
    if (round % 2 === 0) samples.direct.push((await direct()).ms);
    const changed = await timed(() => source.poll());
    const render = changed.value.render;
    if (render?.rendered !== 1 || changed.value.changes.length !== 1) throw new Error(`round ${round}: rendered ${render?.rendered} units, ${changed.value.changes.length} changes`);
    samples.tidemark.push(render.durationMs);
    samples.plan.push(render.planMs);
    samples.poll.push(changed.ms);
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (round % 2 === 1) samples.direct.push((await direct()).ms);
    const idle = await timed(() => source.poll());
    if (idle.value.moved || idle.value.render?.rendered !== 0) throw new Error('a no-op poll rendered a unit');
    samples.noop.push(idle.ms);
    process.stderr.write(`render bench: round ${round + 1}/${rounds}\n`);
  }

  const figures = {
    bench: 'render',
    units,
    rounds,
    initialRenderMs: Math.round(initial.ms),
    loadAverage: { before: loadBefore, after: load() },
    oneOverlayChangeRenderMs: { tidemark: +median(samples.tidemark).toFixed(1), kustomizeBuild: +median(samples.direct).toFixed(1) },
    spreadMs: { tidemark: spread(samples.tidemark), tidemarkPlan: spread(samples.plan), kustomizeBuild: spread(samples.direct) },
    oneOverlayChangePollMs: +median(samples.poll).toFixed(1),
    noopPollMs: +median(samples.noop).toFixed(1),
    noopPollRenderedUnits: 0,
    ratio: { oneOverlayChange: +(median(samples.tidemark) / median(samples.direct)).toFixed(2) },
  };
  console.log(`render on ${units} Kustomize units, median of ${rounds} rounds (ratio = tidemark / kustomize build directly; goal <= 1.2)`);
  console.log(`  one overlay changed   tidemark plan + render ${figures.oneOverlayChangeRenderMs.tidemark} ms   kustomize build ${figures.oneOverlayChangeRenderMs.kustomizeBuild} ms   ratio ${figures.ratio.oneOverlayChange}`);
  const { tidemark, tidemarkPlan, kustomizeBuild } = figures.spreadMs;
  console.log(`  min / median / max     tidemark ${tidemark.min} / ${tidemark.median} / ${tidemark.max} ms (of which plan ${tidemarkPlan.min} / ${tidemarkPlan.median} / ${tidemarkPlan.max})   kustomize build ${kustomizeBuild.min} / ${kustomizeBuild.median} / ${kustomizeBuild.max} ms`);
  console.log(`  load average (1, 5, 15 min) ${figures.loadAverage.before.join(', ')} before, ${figures.loadAverage.after.join(', ')} after`);
  console.log(`  the whole poll (fetch, diff, plan, render) ${figures.oneOverlayChangePollMs} ms; a no-op poll ${figures.noopPollMs} ms, rendering nothing`);
  console.log(JSON.stringify(figures));
} finally {
  await renderer.close();
  await repository.stop();
}
