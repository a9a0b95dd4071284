// Turns each bench's JSON line into figures. Benches that print `figures` need nothing; the
// older ones printed their own shapes, mapped here to value-beside-baseline figures.
import { figure, type Figure } from './figures';

type Json = Record<string, unknown>;
type Load = { rps: number; p50Ms: number; p99Ms: number };

const num = (value: unknown): number => (typeof value === 'number' ? value : Number.NaN);

const adapters: Record<string, (result: Json) => Figure[]> = {
  queue: (result) => [
    figure(`queue throughput, no-op handler, concurrency ${num(result.concurrency)}`, 'jobs/s', num(result.jobsPerSecond), 'redis-benchmark SET ops/s, same clients', num(result.redisSetRps)),
    figure('queue enqueue-to-start p50', 'ms', num(result.enqueueToStartP50Ms), 'redis-benchmark SET p50', num(result.redisSetP50Ms)),
  ],
  'git-poll': (result) => {
    const noop = result.noopPollMs as { tidemark: number; native: number };
    const change = result.oneFileChangePollMs as { tidemark: number; native: number };
    return [
      figure(`no-op poll, ${num(result.objects)} objects`, 'ms', noop.tidemark, 'native git fetch + rev-parse (nothing new)', noop.native),
      figure(`one-file-change poll, ${num(result.objects)} objects`, 'ms', change.tidemark, 'native git fetch + rev-parse + diff --name-only', change.native),
    ];
  },
  'dashboard-objects-page': (result) => {
    const base = result.static as Load;
    const cases: [string, string][] = [['page1', 'objects page 1'], ['middlePage', 'objects middle page'], ['filtered', 'objects filtered (repeat)'], ['coldFiltered', 'objects filtered (cold)']];
    const pages = cases.flatMap(([key, label]) => {
      const load = result[key] as Load | undefined;
      return load ? [figure(`dashboard ${label}, ${num(result.objects)} objects × ${num(result.clusters)} clusters`, 'req/s', load.rps, 'static page of the same size', base.rps)] : [];
    });
    const live = result.liveUpdate as { p50Ms: number; p99Ms: number } | undefined;
    const pubsub = result.pubsub as { p50Ms: number; p99Ms: number } | undefined;
    if (!live || !pubsub) return pages;
    return [
      ...pages,
      figure('dashboard live update, status write to server-sent event, p50', 'ms', live.p50Ms, 'Redis pub/sub round trip, p50', pubsub.p50Ms),
      figure('dashboard live update, status write to server-sent event, p99', 'ms', live.p99Ms, 'Redis pub/sub round trip, p99', pubsub.p99Ms),
    ];
  },
};

/** toFigures reads one JSON line; a shape it does not know gives no figures (the line stays in report.json). */
export function toFigures(line: unknown): Figure[] {
  if (!line || typeof line !== 'object') return [];
  const result = line as Json;
  if (Array.isArray(result.figures)) return result.figures as Figure[];
  const adapt = adapters[String(result.bench)];
  return adapt ? adapt(result) : [];
}
