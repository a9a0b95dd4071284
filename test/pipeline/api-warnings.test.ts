// The API server's Warning headers (what kubectl prints as "Warning: …") are kept: a real
// kube-apiserver warns about a deprecated node label in a Deployment's pod template, and the
// warning is on the object's status record and its dashboard detail page.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let harness: PipelineHarness;
let dashboard: DashboardFixture;
const namespace = `warn-${randomUUID().slice(0, 6)}`;
const key = `apps/Deployment/${namespace}/web`;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  dashboard = await startDashboardFixture(inject('redisUrl'), { store: harness.statusStore, clusters: [harness.cluster] });
});
afterAll(async () => {
  await dashboard?.stop();
  await harness?.stop();
});

describe('API server warnings', () => {
  it('records a Warning header on the object\'s status and shows it on its detail page', async () => {
    await harness.repo.write('ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
    await harness.repo.write('web.yaml', stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace },
      spec: {
        replicas: 1, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { nodeSelector: { 'beta.kubernetes.io/os': 'linux' }, containers: [{ name: 'web', image: 'registry.example/web:1' }] } },
      },
    }));
    await harness.pushAndReconcile('a Deployment with a deprecated node label');

    const warnings = (await harness.statusStore.get(harness.cluster, key))?.warnings ?? [];
    const warning = warnings.find((text) => text.includes('beta.kubernetes.io/os'));
    expect(warning).toMatch(/^The API server warns about Deployment .*web: .*deprecated since v1\.14; use "kubernetes\.io\/os" instead/);

    const page = await dashboard.app.inject({ url: `/objects/${harness.cluster}/${key}`, headers: { authorization: `Bearer ${viewerToken}` } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h2>Warnings</h2>');
    expect(page.body).toContain('beta.kubernetes.io/os');
    expect(page.body).toContain('deprecated since v1.14');
  });
});
