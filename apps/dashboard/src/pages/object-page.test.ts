import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { buildResourceTree } from '../view/resource-tree';
import { objectPage } from './object-page';

const rendered: ObjectStatus = {
  cluster: 'eu', objectKey: 'apps/Deployment/shop/web', source: 'platform', path: 'deploy/overlays/shop/', line: 0,
  apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web', conditions: [], inventory: [],
  renderUnit: { renderer: 'kustomize', folder: 'deploy/overlays/shop', clusterValues: { name: 'eu', 'variables.replicas': '2', 'variables.nginxTag': '1.26' } },
  updatedAt: new Date(0).toISOString(),
} as ObjectStatus;

function page(status: ObjectStatus): string {
  return objectPage({ status, history: [], tree: buildResourceTree(status, new Map()), clusters: ['eu', 'us'], principal: undefined }).value;
}

describe('object page of a rendered object', () => {
  it('names the render unit and the values this cluster got', () => {
    const text = page(rendered);
    expect(text).toContain('<dd id="render-unit">kustomize from <code>deploy/overlays/shop</code></dd>');
    expect(text).toContain('<code>${cluster.variables.replicas}</code> = <code>2</code>');
    expect(text).toContain('<code>${cluster.variables.nginxTag}</code> = <code>1.26</code>');
  });

  it('says nothing of units for a plain object', () => {
    const { renderUnit: _unit, ...plain } = rendered;
    expect(page({ ...plain, path: 'deploy/web.yaml', line: 3 })).not.toContain('render-unit');
  });
});
