import { describe, expect, it } from 'vitest';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { withRunLog } from './observe-run';

describe('withRunLog', () => {
  it('adds the object key, cluster, source, revision and the current stage to every line', () => {
    const lines: Record<string, unknown>[] = [];
    const log = { info: (fields: Record<string, unknown>) => lines.push(fields), warn: (fields: Record<string, unknown>) => lines.push(fields) };
    const run = { job: { source: 'repo', revision: 'r'.repeat(40), cluster: 'east', objectKey: 'core/ConfigMap/ns/a', reason: 'git-change' }, stage: 'fetch' } as ReconcileRun;
    const deps = withRunLog(run, { log } as unknown as PipelineDependencies);
    deps.log?.info({ extra: 1 }, 'first');
    run.stage = 'apply';
    deps.log?.warn({}, 'second');
    expect(lines).toEqual([
      { objectKey: 'core/ConfigMap/ns/a', cluster: 'east', source: 'repo', revision: 'r'.repeat(40), stage: 'fetch', extra: 1 },
      { objectKey: 'core/ConfigMap/ns/a', cluster: 'east', source: 'repo', revision: 'r'.repeat(40), stage: 'apply' },
    ]);
  });
});
