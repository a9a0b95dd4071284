// Where the milliseconds of one webhook push go: the reconciler marks each point of the path
// (apps/reconciler/src/push-path-marks.ts), this records them with the bench's clock and splits
// each push into segments; describeBreakdowns prints the median and p99 of each segment.
import type { PushPathDetail, PushPathMark, PushPathStage } from '../../apps/reconciler/src/push-path-marks';
import { percentile, sortedCopy } from './figures';

interface Mark { stage: PushPathStage; at: number; detail: PushPathDetail }

/** PushBreakdown is one push: each segment's ms, and the run's API requests. */
export interface PushBreakdown {
  segments: Record<string, number>;
  /** The API requests answered between the object's job start and the bench seeing Ready, by label: count and ms. */
  requests: Record<string, { count: number; ms: number }>;
}

/** The segments in path order: [label, from, to]. `notify` is the bench sending the webhook, `ready` the bench seeing Ready. */
const segments: [string, string, string][] = [
  ['webhook sent → received (HTTP, HMAC)', 'notify', 'webhook-received'],
  ['received → poll started', 'webhook-received', 'poll-started'],
  ['poll: git fetch + tree diff', 'poll-started', 'poll-read'],
  ['route the changes to jobs', 'poll-read', 'jobs-routed'],
  ['commit clock, commit status, enqueue', 'jobs-routed', 'jobs-enqueued'],
  ['queue wait (enqueued → job started)', 'jobs-enqueued', 'job-started'],
  // The run writes the status, then sends its Event: the bench may see Ready before the job ends.
  ['pipeline run until the bench sees Ready', 'job-started', 'ready'],
];

/** PushPathRecorder collects the marks of one push at a time. */
export class PushPathRecorder {
  private marks: Mark[] = [];
  private started = 0;

  readonly mark: PushPathMark = (stage, detail) => {
    this.marks.push({ stage, at: performance.now(), detail });
  };

  /** begin forgets earlier marks and returns the push's start time. */
  begin(): number {
    this.marks = [];
    this.started = performance.now();
    return this.started;
  }

  /** end splits the marks since begin into segments, for the job of `objectKey`. */
  end(objectKey: string): PushBreakdown {
    const ready = performance.now();
    const at = this.firstTimes(objectKey, ready);
    const breakdown: PushBreakdown = { segments: {}, requests: {} };
    for (const [label, from, to] of segments) {
      const start = at.get(from);
      const stop = at.get(to);
      if (start !== undefined && stop !== undefined) breakdown.segments[label] = stop - start;
    }
    const runStart = at.get('job-started') ?? Infinity;
    for (const { stage, at: time, detail } of this.marks) {
      if (stage !== 'kube-response' || !detail.request || time < runStart || time > ready) continue;
      const entry = (breakdown.requests[requestLabel(detail.request)] ??= { count: 0, ms: 0 });
      entry.count += 1;
      entry.ms += detail.request.durationMs;
    }
    return breakdown;
  }

  /** firstTimes is when each point was first passed (a job's only for `objectKey`). */
  private firstTimes(objectKey: string, ready: number): Map<string, number> {
    const at = new Map<string, number>([['notify', this.started], ['ready', ready]]);
    for (const { stage, at: time, detail } of this.marks) {
      if (stage === 'kube-response' || at.has(stage)) continue;
      if ((stage === 'job-started' || stage === 'job-finished') && detail.objectKey !== objectKey) continue;
      at.set(stage, time);
    }
    return at;
  }
}

/** requestLabel is a request's verb and resource, e.g. "PATCH (apply) configmaps". */
export function requestLabel(request: NonNullable<PushPathDetail['request']>): string {
  const path = request.path.split('?')[0] ?? '';
  const parts = path.split('/').filter(Boolean);
  // /api/v1/namespaces/ns/configmaps/name[/status] or /apis/group/version/...: the resource follows the namespace.
  const index = parts.indexOf('namespaces');
  const resource = index >= 0 && parts.length > index + 2 ? parts.slice(index + 2).filter((_, n) => n !== 1).join('/') : parts.at(-1) ?? path;
  const dryRun = request.dryRun || /[?&]dryRun=/.test(request.path);
  const kind = `${request.apply ? ' (apply' : ''}${dryRun ? (request.apply ? ', dry-run)' : ' (dry-run)') : request.apply ? ')' : ''}`;
  return `${request.method}${kind} ${resource}`;
}

/** describeBreakdowns prints each segment's p50 and p99 over the pushes, and the run's requests per push. */
export function describeBreakdowns(pushes: readonly PushBreakdown[]): string[] {
  const lines = [`where the ms of a webhook push went (${pushes.length} pushes; segment p50 / p99, ms):`];
  for (const [label] of segments) {
    const samples = sortedCopy(pushes.map((push) => push.segments[label]).filter((value): value is number => value !== undefined));
    lines.push(`  ${label.padEnd(44)} ${fixed(percentile(samples, 0.5))} / ${fixed(percentile(samples, 0.99))}${samples.length < pushes.length ? `  (in ${samples.length} pushes)` : ''}`);
  }
  const labels = [...new Set(pushes.flatMap((push) => Object.keys(push.requests)))].sort();
  lines.push('  API requests answered from job start to Ready (per push: mean count, p50 ms of their sum):');
  for (const label of labels) {
    const counts = pushes.map((push) => push.requests[label]?.count ?? 0);
    const ms = sortedCopy(pushes.map((push) => push.requests[label]?.ms ?? 0));
    lines.push(`    ${label.padEnd(42)} ${(counts.reduce((a, b) => a + b, 0) / pushes.length).toFixed(1)} × , ${fixed(percentile(ms, 0.5))} ms`);
  }
  return lines;
}

function fixed(ms: number): string {
  return ms.toFixed(1).padStart(7);
}
