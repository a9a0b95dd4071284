import { describe, expect, it } from 'vitest';
import type { DriftItem } from '@tidemark/contracts';
import { buildObjectDiffs, pointerSegments } from './drift-diff';

const at = '2026-01-01T00:00:00Z';
const item = (path: string, desired: unknown, live: unknown, object?: string, manager = 'kubectl-edit'): DriftItem =>
  ({ path, desired, live, manager, detectedAt: at, ...(object ? { object } : {}) });

describe('buildObjectDiffs', () => {
  it('nests drifted fields under their parent keys, one diff per object, with the manager on the changed lines', () => {
    const diffs = buildObjectDiffs([
      item('/spec/replicas', 2, 7, 'Deployment shop/web', 'kubectl-scale'),
      item('/spec/template/spec/containers/0/image', 'nginx:1.27', 'nginx:1.28', 'Deployment shop/web'),
      item('/data/greeting', 'hello', 'bye', 'ConfigMap shop/web-config'),
    ]);
    expect(diffs.map((diff) => diff.object)).toEqual(['Deployment shop/web', 'ConfigMap shop/web-config']);
    expect(diffs[0]!.lines).toEqual([
      { depth: 0, desired: 'spec:', live: 'spec:', changed: false },
      { depth: 1, desired: 'replicas: 2', live: 'replicas: 7', changed: true, path: '/spec/replicas', manager: 'kubectl-scale' },
      { depth: 1, desired: 'template:', live: 'template:', changed: false },
      { depth: 2, desired: 'spec:', live: 'spec:', changed: false },
      { depth: 3, desired: 'containers:', live: 'containers:', changed: false },
      { depth: 4, desired: '[0]:', live: '[0]:', changed: false },
      { depth: 5, desired: 'image: nginx:1.27', live: 'image: nginx:1.28', changed: true, path: '/spec/template/spec/containers/0/image', manager: 'kubectl-edit' },
    ]);
  });

  it('pads a multi-line value so both sides line up, and says when a field is absent', () => {
    const [diff] = buildObjectDiffs([item('/data/app.conf', 'a=1\nb=2\n', undefined), item('/metadata/labels/team', undefined, 'x')]);
    const changed = diff!.lines.filter((line) => line.changed);
    expect(changed.map((line) => [line.desired, line.live])).toEqual([
      ['app.conf: |', 'app.conf: (absent)'], ['  a=1', ''], ['  b=2', ''],
      ['team: (absent)', 'team: x'],
    ]);
  });

  it('unescapes JSON pointer segments', () => {
    expect(pointerSegments('/metadata/annotations/tidemark.dev~1drift')).toEqual(['metadata', 'annotations', 'tidemark.dev/drift']);
  });
});
