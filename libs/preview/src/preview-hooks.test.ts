import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { describeHook, inRunOrder, previewHook } from './preview-hooks';
import { previewMarkdown } from './preview-markdown';

const job = (name: string, annotations: Record<string, string>): KubernetesManifest => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'shop', annotations } });

describe('preview hooks', () => {
  it('lists hooks in the order they run, a Helm hook Tidemark never runs with why, and no ordinary object', () => {
    const hooks = [
      previewHook('prod', 'batch/Job/shop/smoke', job('smoke', { 'helm.sh/hook': 'post-upgrade' }), 'chart'),
      previewHook('prod', 'batch/Job/shop/migrate', job('migrate', { 'helm.sh/hook': 'pre-upgrade', 'helm.sh/hook-weight': '5' }), 'chart'),
      previewHook('prod', 'batch/Job/shop/schema', job('schema', { 'tidemark.dev/hook': 'pre-apply', 'tidemark.dev/hook-weight': '-5' }), 'jobs/schema.yaml'),
      previewHook('prod', 'batch/Job/shop/undo', job('undo', { 'helm.sh/hook': 'post-rollback' }), 'chart'),
    ].filter((hook) => hook !== undefined);
    expect(previewHook('prod', 'batch/Job/shop/plain', job('plain', {}), 'x.yaml')).toBeUndefined();
    const ordered = inRunOrder(hooks).map(describeHook);
    expect(ordered).toEqual([
      'pre-apply (weight -5) Job shop/schema',
      'Job shop/undo: Helm hook post-rollback has no moment in Tidemark (no rollback, nothing runs after a delete); it is not applied.',
      'pre-apply (weight 5) Job shop/migrate',
      'post-apply (weight 0) Job shop/smoke',
    ]);
    const markdown = previewMarkdown({ source: 'apps', ref: 'main', state: 'done', requestedAt: '', changes: [], hooks: inRunOrder(hooks) });
    expect(markdown).toContain('#### Hooks that would run');
    expect(markdown).toContain('- pre-apply (weight -5) Job shop/schema on `prod` (`jobs/schema.yaml`)');
  });
});
