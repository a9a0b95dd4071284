import { describe, expect, it } from 'vitest';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { healthTimeoutOf, healthWait } from './stage-health';

const runOf = (source: string, annotation?: string) => ({
  job: { source, revision: 'r'.repeat(40), cluster: 'east', objectKey: 'core/ConfigMap/ns/a', reason: 'git-change' },
  stage: 'health',
  desired: { path: 'a.yaml', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', ...(annotation ? { annotations: { 'tidemark.dev/health-timeout': annotation } } : {}) } } },
}) as unknown as ReconcileRun;

const depsOf = (sources: Record<string, number>, globalMs?: number) => ({
  healthTimeoutFor: (source: string) => sources[source],
  ...(globalMs === undefined ? {} : { options: { healthTimeoutMs: globalMs } }),
}) as unknown as PipelineDependencies;

describe('healthTimeoutOf', () => {
  it("takes the object's annotation, else its source's healthTimeoutMs, else the reconciler's, else ten minutes", () => {
    const deps = depsOf({ slow: 1_800_000 }, 120_000);
    expect(healthTimeoutOf(runOf('slow', '90s'), deps)).toBe(90_000);
    expect(healthTimeoutOf(runOf('slow'), deps)).toBe(1_800_000);
    expect(healthTimeoutOf(runOf('other'), deps)).toBe(120_000);
    expect(healthTimeoutOf(runOf('other'), depsOf({}))).toBe(600_000);
  });

  it("a source's timeout applies to its own objects only", () => {
    const deps = depsOf({ tenant: 2_000 }, 600_000);
    const now = new Date();
    const since = new Date(now.getTime() - 5_000).toISOString();
    const waited = (source: string) => healthWait({ ...runOf(source), specHash: 'h', previous: { specHash: 'h', unreadySince: since } } as unknown as ReconcileRun, deps, now);
    expect(waited('tenant')).toMatchObject({ timedOut: true, said: '5s, past its health timeout of 2s' });
    expect(waited('neighbour')).toMatchObject({ timedOut: false, said: '5s, within its health timeout of 10m0s' });
  });
});
