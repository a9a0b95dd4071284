import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { buildResourceTree } from '../view/resource-tree';
import { objectPage, type ObjectPageInput } from './object-page';

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

describe('object page trace links', () => {
  const run = { revision: 'a'.repeat(40), startedAt: new Date(0).toISOString(), durationMs: 12, result: 'succeeded' as const };
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const withHistory = (history: ObjectPageInput['history'], traceUrl?: string) =>
    objectPage({ status: rendered, history, tree: buildResourceTree(rendered, new Map()), clusters: ['eu'], principal: undefined, ...(traceUrl ? { traceUrl } : {}) }).value;

  it('links a traced run to its trace when a trace UI is configured', () => {
    const text = withHistory([{ ...run, traceId }], 'https://jaeger.example.com/trace/{traceId}');
    expect(text).toContain(`<a class="trace" href="https://jaeger.example.com/trace/${traceId}" rel="noreferrer">trace</a>`);
  });

  it('links nothing without a trace UI, or for a run without a trace', () => {
    expect(withHistory([{ ...run, traceId }])).not.toContain('class="trace"');
    expect(withHistory([run], 'https://jaeger.example.com/trace/{traceId}')).not.toContain('class="trace"');
  });

  it('makes no link of a trace id from Redis that is not 32 lowercase hex digits', () => {
    for (const bad of ['"><script>alert(1)</script>', traceId.toUpperCase(), `${traceId}0`, 'javascript:alert(1)']) {
      const text = withHistory([{ ...run, traceId: bad }], 'https://jaeger.example.com/trace/{traceId}');
      expect(text).not.toContain('class="trace"');
      expect(text).not.toContain('<script>');
    }
  });
});
