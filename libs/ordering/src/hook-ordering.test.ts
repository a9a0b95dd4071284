import { describe, expect, it } from 'vitest';
import { parseHook, type KubernetesManifest } from '@tidemark/contracts';
import { buildRevisionOrdering, type OrderedObject } from './revision-ordering';
import { preDeleteRun } from './hook-ordering';

function entry(kind: string, name: string, annotations: Record<string, string> = {}, specHash = `hash-${name}`): OrderedObject {
  const group = kind === 'Job' ? 'batch' : kind === 'Deployment' ? 'apps' : 'core';
  const object: KubernetesManifest = { apiVersion: group === 'core' ? 'v1' : `${group}/v1`, kind, metadata: { name, namespace: 'app', annotations } };
  return { objectKey: `${group}/${kind}/app/${name}`, path: 'all.yaml', specHash, object };
}
const helm = (hook: string, weight?: string, policy?: string) => ({ 'helm.sh/hook': hook, ...(weight ? { 'helm.sh/hook-weight': weight } : {}), ...(policy ? { 'helm.sh/hook-delete-policy': policy } : {}) });

describe('hook ordering', () => {
  it('runs pre-apply hooks by weight before everything but Namespaces, and post-apply hooks after it', () => {
    const namespace = { objectKey: 'core/Namespace/_/app', path: 'ns.yaml', specHash: 'ns', object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } } };
    const objects = [
      namespace,
      entry('Deployment', 'web'),
      entry('ConfigMap', 'settings', { 'tidemark.dev/sync-wave': '-1' }),
      entry('Job', 'migrate', helm('pre-install,pre-upgrade', '5')),
      entry('Job', 'backup', { 'tidemark.dev/hook': 'pre-apply', 'tidemark.dev/hook-weight': '-1' }),
      entry('Job', 'smoke', helm('post-upgrade,post-install')),
    ];
    const ordering = buildRevisionOrdering('apps', objects);
    const waits = (key: string) => ordering.nodes.get(key)!.dependencies.map((dependency) => `${dependency.reason}:${dependency.objectKey.split('/').pop()}`);
    expect(waits('batch/Job/app/backup')).toEqual(['namespace:app']);
    expect(waits('batch/Job/app/migrate')).toEqual(['namespace:app', 'hook:backup']);
    expect(waits('core/ConfigMap/app/settings')).toEqual(['namespace:app', 'hook:migrate', 'hook:backup']);
    expect(waits('apps/Deployment/app/web')).toEqual(['namespace:app', 'sync-wave:settings', 'hook:migrate', 'hook:backup']);
    expect(waits('core/Namespace/_/app')).toEqual([]);
    expect(waits('batch/Job/app/smoke')).toEqual(['namespace:app', 'hook:web', 'hook:settings']);
    expect(ordering.cycles).toEqual([]);
  });

  it('has an apply-failed hook wait for nothing and watch every object and pre- or post-apply hook of the revision', () => {
    const ordering = buildRevisionOrdering('apps', [
      entry('Deployment', 'web'), entry('Job', 'migrate', { 'tidemark.dev/hook': 'pre-apply' }), entry('Job', 'smoke', { 'tidemark.dev/hook': 'post-apply' }),
      entry('Job', 'page', { 'tidemark.dev/hook': 'apply-failed' }),
    ]);
    const page = ordering.nodes.get('batch/Job/app/page')!;
    expect(page.dependencies).toEqual([]);
    expect(page.hookWatches!.map((watched) => watched.objectKey.split('/').pop()).sort()).toEqual(['migrate', 'smoke', 'web']);
    expect(page.hookWatches!.find((watched) => watched.objectKey.endsWith('/migrate'))!.specHash).toBe(ordering.nodes.get('batch/Job/app/migrate')!.hook!.specHash);
  });

  it('gives a hook a new run, and what waits for it a new spec to wait for, exactly when what the source applies changes', () => {
    const hook = entry('Job', 'migrate', { 'tidemark.dev/hook': 'pre-apply' });
    const first = buildRevisionOrdering('apps', [hook, entry('Deployment', 'web', {}, 'v1')]);
    const same = buildRevisionOrdering('apps', [hook, entry('Deployment', 'web', {}, 'v1')]);
    const next = buildRevisionOrdering('apps', [hook, entry('Deployment', 'web', {}, 'v2')]);
    const runOf = (ordering: typeof first) => ordering.nodes.get(hook.objectKey)!.hook!;
    expect(runOf(first).runId).toMatch(/^[0-9a-f]{10}$/);
    expect(runOf(same)).toEqual(runOf(first));
    expect(runOf(next).runId).not.toBe(runOf(first).runId);
    const waitedSpec = (ordering: typeof first) => ordering.nodes.get('apps/Deployment/app/web')!.dependencies[0]!.specHash;
    expect(waitedSpec(first)).toBe(runOf(first).specHash);
    expect(waitedSpec(next)).toBe(runOf(next).specHash);
    expect(runOf(first).specHash).not.toBe(hook.specHash);
  });

  it('reports a hook it cannot read as a problem of the object, and skips Helm hooks with no moment in Tidemark', () => {
    const ordering = buildRevisionOrdering('apps', [
      entry('Job', 'odd', { 'tidemark.dev/hook': 'pre-sync' }),
      entry('Job', 'heavy', { 'tidemark.dev/hook': 'post-apply', 'helm.sh/hook-weight': 'ten' }),
      entry('Job', 'cleanup', helm('post-delete')),
      entry('Deployment', 'web'),
    ]);
    expect(ordering.nodes.get('batch/Job/app/odd')!.problems).toEqual(['annotation tidemark.dev/hook: "pre-sync" is not a hook phase: write pre-apply, post-apply, apply-failed, pre-delete.']);
    expect(ordering.nodes.get('batch/Job/app/heavy')!.problems[0]).toMatch(/helm.sh\/hook-weight: "ten" is not a hook weight/);
    expect(ordering.nodes.get('batch/Job/app/cleanup')!.skippedHook).toMatch(/post-delete has no moment in Tidemark/);
    expect(ordering.nodes.get('apps/Deployment/app/web')!.dependencies).toEqual([]);
  });
});

describe('preDeleteRun', () => {
  it('gives a pre-delete hook a run of its own when its source is deleted, the same in every process, waiting for nothing', () => {
    const objects = [entry('ConfigMap', 'settings'), entry('Job', 'backup', { 'tidemark.dev/hook': 'pre-delete' })];
    const listed = buildRevisionOrdering('shop', objects).nodes.get('batch/Job/app/backup')!;
    expect(listed.dependencies).toEqual([]);
    const run = preDeleteRun(listed.hook!);
    expect(run.hook).toEqual(listed.hook!.hook);
    expect(run.runId).toMatch(/^[0-9a-f]{10}$/);
    expect(run.runId).not.toBe(listed.hook!.runId);
    expect(run.specHash).not.toBe(listed.hook!.specHash);
    expect(preDeleteRun(buildRevisionOrdering('shop', objects).nodes.get('batch/Job/app/backup')!.hook!)).toEqual(run);
  });
});

describe('parseHook', () => {
  it('maps Helm hooks onto phases with their weight and delete policies, Tidemark annotation first', () => {
    expect(parseHook({ metadata: { name: 'a', annotations: helm('pre-install', '-3', 'before-hook-creation,hook-succeeded') } }).hook)
      .toEqual({ phase: 'pre-apply', weight: -3, deletePolicies: ['before-hook-creation', 'hook-succeeded'], declaredBy: 'helm' });
    expect(parseHook({ metadata: { name: 'a', annotations: { ...helm('post-install'), 'tidemark.dev/hook': 'pre-delete' } } }).hook)
      .toEqual({ phase: 'pre-delete', weight: 0, deletePolicies: ['before-hook-creation'], declaredBy: 'tidemark' });
    expect(parseHook({ metadata: { name: 'a', annotations: helm('pre-install,post-install') } }).problem).toMatch(/runs in pre-apply and post-apply; a hook runs in one phase/);
    expect(parseHook({ metadata: { name: 'a', annotations: helm('pre-upgrade', undefined, 'always') } }).problem).toMatch(/"always" is not a delete policy/);
    expect(parseHook({ metadata: { name: 'a', annotations: helm('x'.repeat(10_000)) } }).problem!.length).toBeLessThan(400);
    expect(parseHook({ metadata: { name: 'a' } })).toEqual({});
  });
});
