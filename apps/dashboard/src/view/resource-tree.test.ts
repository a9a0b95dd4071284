import { describe, expect, it } from 'vitest';
import type { LiveChild, ObjectStatus } from '@tidemark/contracts';
import { buildResourceTree, flattenTree, ownerUidsOf } from './resource-tree';

const ready = [{ type: 'Ready', status: 'True' as const, observedGeneration: 1, reason: 'Succeeded', message: 'Applied.', lastTransitionTime: '2026-11-30T00:00:00Z' }];
const base: ObjectStatus = { cluster: 'c', objectKey: 'apps/Deployment/shop/web', source: 's', apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web', conditions: ready, inventory: [], updatedAt: '2026-11-30T00:00:00Z' };
const child = (kind: string, name: string, uid: string, ownerUid: string): LiveChild => ({ kind, namespace: 'shop', name, uid, ownerUid, health: 'Ready' });

describe('buildResourceTree', () => {
  it('roots a plain manifest at itself, with its ReplicaSet and the Pods under it', () => {
    const status: ObjectStatus = { ...base, resources: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web', uid: 'd1', action: 'unchanged', health: 'Ready' }] };
    expect(ownerUidsOf(status)).toEqual(['d1']);
    const tree = buildResourceTree(status, new Map([['d1', [child('ReplicaSet', 'web-1', 'r1', 'd1'), child('Pod', 'web-1-a', 'p1', 'r1'), child('Pod', 'web-1-b', 'p2', 'r1')]]]));
    expect(flattenTree(tree).map(({ node, depth }) => `${depth} ${node.kind} ${node.name} ${node.sync}`)).toEqual([
      '0 Deployment web Synced', '1 ReplicaSet web-1 Live', '2 Pod web-1-a Live', '2 Pod web-1-b Live',
    ]);
  });

  it('marks what drifted, and what the last apply created or configured', () => {
    const status: ObjectStatus = {
      ...base, kind: 'WebApp', objectKey: 'tidemark.dev/WebApp/shop/web',
      resources: [
        { apiVersion: 'v1', kind: 'Service', namespace: 'shop', name: 'web', action: 'created', health: 'Ready' },
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'web', action: 'configured', health: 'Ready' },
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web', action: 'skipped', health: 'Progressing' },
      ],
      drift: [{ object: 'Deployment shop/web', path: '/spec/replicas', desired: 2, live: 3, manager: 'kubectl', detectedAt: '' }],
    };
    const tree = buildResourceTree(status, new Map());
    expect([tree.sync, ...tree.children.map((node) => `${node.kind} ${node.sync} ${node.health}`)]).toEqual(['Drifted', 'Service Created Ready', 'ConfigMap Configured Ready', 'Deployment Drifted Progressing']);
  });
});
