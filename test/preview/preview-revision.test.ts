// previewRevision against the rig: a real Git server with a pushed feature branch, the shared
// kube-apiserver for the server-side dry-runs, and a Redis status store. It must report every kind
// of change, and write nothing to the cluster or to the status of the main branch's objects.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getObject } from '@tidemark/cluster';
import type { PreviewReport } from '@tidemark/contracts';
import { previewMarkdown } from '@tidemark/preview';
import type { PipelineHarness } from '../support/pipeline-harness';
import { startPreviewScenario, type PreviewScenario } from './preview-scenario';

let scenario: PreviewScenario;
let harness: PipelineHarness;
let report: PreviewReport;
let namespace: string;

// startPreviewScenario fails when the preview changed a live object or a status record.
beforeAll(async () => {
  scenario = await startPreviewScenario(inject('kubeconfig'), inject('redisUrl'));
  ({ harness, report, namespace } = scenario);
});

afterAll(async () => {
  await scenario?.stop();
});

const changeOf = (kind: string, name: string) => report.changes.find((change) => change.kind === kind && change.name === name);

describe('previewRevision', () => {
  it('lists field changes, naming the manager whose value would be overwritten', () => {
    expect(changeOf('ConfigMap', 'change')).toMatchObject({
      cluster: 'shared', action: 'configured', path: 'change.yaml',
      fields: [{ path: '/data/color', live: 'red', desired: 'green', overwrites: 'kubectl-edit' }, { path: '/data/size', desired: 'L' }],
      desired: { data: { color: 'green', size: 'L' } }, live: { data: { color: 'red' } },
    });
    expect(changeOf('ConfigMap', 'keep')).toBeUndefined();
  });

  it('lists created and deleted objects, and those the API server would refuse, with its message', () => {
    expect(changeOf('ConfigMap', 'new')).toMatchObject({ action: 'created', path: 'new.yaml' });
    expect(changeOf('ConfigMap', 'gone')).toMatchObject({ action: 'deleted', path: 'gone.yaml' });
    const bad = changeOf('Service', 'bad');
    expect(bad).toMatchObject({ action: 'invalid', path: 'bad.yaml' });
    expect(bad?.message).toMatch(/70000/);
  });

  it('says only that a Secret changed, never its values', () => {
    const db = changeOf('Secret', 'db');
    expect(db?.action).toBe('configured');
    expect(db?.fields?.every((field) => field.desired === '[redacted]')).toBe(true);
    const everything = JSON.stringify(report) + previewMarkdown(report);
    for (const value of scenario.secretValues) {
      expect(everything).not.toContain(value);
    }
  });

  it('sums up the blast radius and flags RBAC changes', () => {
    expect(report.blastRadius).toMatchObject({
      clusters: ['shared'], namespaces: [namespace], kinds: ['ConfigMap', 'Role', 'Secret', 'Service'],
      counts: { created: 2, configured: 2, deleted: 1, invalid: 1 },
    });
    expect(report.blastRadius?.flagged).toEqual([`shared: Role ${namespace}/reader — RBAC created: who may do what changes`]);
  });

  it('wrote nothing: the new objects are not in the cluster', async () => {
    expect(await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'new' })).toBeUndefined();
    expect(await getObject(harness.connection, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', namespace, name: 'reader' })).toBeUndefined();
    expect((await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'change' }))?.data).toEqual({ color: 'red' });
  });

  it('renders markdown for a pull request', () => {
    const markdown = previewMarkdown(report, 'http://dashboard.example/previews/test/feature');
    expect(markdown).toContain('**2 created, 2 changed, 1 deleted, 1 invalid** on 1 cluster(s): `shared`');
    expect(markdown).toContain('~ ConfigMap');
    expect(markdown).toContain('/data/color: "red" → "green"  (overwrites kubectl-edit)');
    expect(markdown).toMatch(/#### Would fail validation\n\n- `Service .*\/bad` on `shared` \(`bad.yaml` line 1\): .*70000/);
  });
});
