import { describe, expect, it } from 'vitest';
import type { PreviewChange, PreviewReport } from '@tidemark/contracts';
import { blastRadius } from './blast-radius';
import { displayObject } from './display-object';
import { previewMarkdown } from './preview-markdown';

const change = (extra: Partial<PreviewChange>): PreviewChange => ({ cluster: 'a', objectKey: 'k', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'x', action: 'configured', ...extra });

describe('blastRadius', () => {
  it('counts every action, spans only what moves, and flags RBAC, CRDs and deleted Namespaces', () => {
    const radius = blastRadius([
      change({}), change({ cluster: 'b', action: 'unchanged', namespace: 'quiet' }),
      change({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespace: '', name: 'admins', action: 'deleted' }),
      change({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: '', name: 'webapps.tidemark.dev' }),
      change({ kind: 'Namespace', namespace: '', name: 'old', action: 'deleted' }),
    ]);
    expect(radius.clusters).toEqual(['a']);
    expect(radius.namespaces).toEqual(['old', 'shop']);
    expect(radius.counts).toEqual({ created: 0, configured: 2, unchanged: 1, deleted: 2, invalid: 0, skipped: 0 });
    expect(radius.flagged).toEqual([
      'a: ClusterRoleBinding admins — RBAC deleted: who may do what changes',
      'a: CustomResourceDefinition webapps.tidemark.dev — CRD configured: every object of its kind is affected',
      'a: Namespace old — Namespace deleted: everything in it is deleted',
    ]);
  });
});

describe('displayObject', () => {
  it('drops status and server metadata, and redacts Secret values and opted-in objects', () => {
    const shown = displayObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', managedFields: [], resourceVersion: '5', uid: 'u' }, data: { password: 'c2VjcmV0' }, status: {} } as never);
    expect(shown).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: '[redacted]' } });
    const optedIn = displayObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { 'tidemark.dev/redact': 'true' } }, data: { key: 'value' } } as never);
    expect(optedIn?.data).toEqual({ key: '[redacted]' });
    expect(displayObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key: 'value' } } as never)?.data).toEqual({ key: 'value' });
  });
});

describe('previewMarkdown', () => {
  it('keeps text from Git and the API server from adding links or breaking out of code', () => {
    const report: PreviewReport = {
      source: 'main', ref: 'evil`ref', state: 'done', requestedAt: '', changes: [change({ action: 'invalid', message: '[click](http://evil) <img src=x> # heading' })],
    };
    const markdown = previewMarkdown(report);
    expect(markdown).toContain('`evil ref`');
    expect(markdown).toContain('\\[click\\](http://evil) \\<img src=x\\> \\# heading');
  });

  it('says when the preview failed', () => {
    expect(previewMarkdown({ source: 'main', ref: 'x', state: 'failed', error: 'no branch x', requestedAt: '', changes: [] })).toContain('**The preview failed:** no branch x');
  });
});
