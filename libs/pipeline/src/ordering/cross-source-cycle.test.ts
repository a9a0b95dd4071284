import { describe, expect, it } from 'vitest';
import { buildRevisionOrdering, type RevisionOrdering } from '@tidemark/ordering';
import type { Declaration, PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { describeCrossSourceCycle, findCrossSourceCycle } from './stage-order';

// Two sources' revisions as the ordering reads them; the declaration index and the reader are the
// pipeline's own interfaces (the reconciler backs them with Git), answered here from these objects.
const configMap = (name: string, dependsOn?: string) => ({
  objectKey: `core/ConfigMap/shop/${name}`, path: `${name}.yaml`, specHash: name,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop', ...(dependsOn ? { annotations: { 'tidemark.dev/depends-on': dependsOn } } : {}) } },
});
type Objects = Record<string, ReturnType<typeof configMap>[]>;

function world(objects: Objects): { deps: PipelineDependencies; orderings: Record<string, RevisionOrdering> } {
  const orderings = Object.fromEntries(Object.entries(objects).map(([source, list]) => [source, buildRevisionOrdering(source, list)]));
  const deps = {
    desired: { readObject: () => Promise.resolve(undefined), orderingAt: (source: string) => Promise.resolve(orderings[source]) },
    declarations: {
      named: (_cluster: string, name: string) => Promise.resolve(Object.entries(objects).flatMap(([source, list]) => list
        .filter((entry) => entry.object.metadata.name === name)
        .map((entry): Declaration => ({ source, revision: `${source}-rev`, objectKey: entry.objectKey, object: entry.object, path: entry.path })))),
      wake: () => Promise.resolve(),
    },
  } as unknown as PipelineDependencies;
  return { deps, orderings };
}

const runOf = (source: string, name: string) => ({ job: { source, revision: `${source}-rev`, cluster: 'east', objectKey: `core/ConfigMap/shop/${name}`, reason: 'git-change' } }) as ReconcileRun;

async function cycleSeenBy(objects: Objects, source: string, name: string): Promise<string | undefined> {
  const { deps, orderings } = world(objects);
  const cycle = await findCrossSourceCycle(runOf(source, name), deps, orderings[source]!.nodes.get(`core/ConfigMap/shop/${name}`)!);
  return cycle && describeCrossSourceCycle(cycle);
}

describe('findCrossSourceCycle', () => {
  const cycle: Objects = {
    'tenant-a': [configMap('a1', 'tenant-b:v1/ConfigMap/shop/b'), configMap('a2', 'v1/ConfigMap/shop/a1')],
    'tenant-b': [configMap('b', 'tenant-a:v1/ConfigMap/shop/a2')],
  };

  it('finds a cycle through another source, through an edge inside a revision too, the same for every member', async () => {
    const said = 'ConfigMap shop/a1 (source tenant-a), ConfigMap shop/a2 (source tenant-a), ConfigMap shop/b (source tenant-b) depend on each other across sources';
    expect(await cycleSeenBy(cycle, 'tenant-a', 'a1')).toBe(said);
    expect(await cycleSeenBy(cycle, 'tenant-b', 'b')).toBe(said);
    // a2 names nothing outside its revision, and is a member all the same.
    expect(await cycleSeenBy(cycle, 'tenant-a', 'a2')).toBe(said);
  });

  it('finds none in a chain across sources, nor through a reference that names another source', async () => {
    const chain: Objects = { 'tenant-a': [configMap('a1', 'tenant-b:v1/ConfigMap/shop/b')], 'tenant-b': [configMap('b')] };
    expect(await cycleSeenBy(chain, 'tenant-a', 'a1')).toBeUndefined();
    const elsewhere: Objects = { ...cycle, 'tenant-b': [configMap('b', 'tenant-c:v1/ConfigMap/shop/a2')] };
    expect(await cycleSeenBy(elsewhere, 'tenant-a', 'a1')).toBeUndefined();
  });
});
