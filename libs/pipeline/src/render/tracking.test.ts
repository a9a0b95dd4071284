import { ownerAnnotation, ownerLabel, ownerLabelValue } from '@tidemark/contracts';
import { describe, expect, it } from 'vitest';
import { withOwner } from './tracking';

describe('withOwner', () => {
  it('marks an object as Tidemark-managed and tracks its owner', () => {
    const marked = withOwner({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { app: 'a' } } }, 'src/ConfigMap/_/a');
    expect(marked.metadata.labels).toEqual({ app: 'a', 'app.kubernetes.io/managed-by': 'tidemark', [ownerLabel]: ownerLabelValue('src/ConfigMap/_/a') });
    expect(marked.metadata.annotations?.[ownerAnnotation]).toBe('src/ConfigMap/_/a');
  });

  it("keeps a rendered object's own managed-by label, as helm template printed it", () => {
    const rendered = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'podinfo', labels: { 'app.kubernetes.io/managed-by': 'Helm' } } };
    expect(withOwner(rendered, 'src/Service/_/podinfo').metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
  });

  it('labels the owner with a hash Git cannot override, a valid label value however long the owner', () => {
    const owner = `${'s'.repeat(200)}:core/ConfigMap/${'n'.repeat(60)}/${'x'.repeat(250)}`;
    const marked = withOwner({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { [ownerLabel]: 'forged' } } }, owner);
    const value = marked.metadata.labels?.[ownerLabel] ?? '';
    expect(value).toBe(ownerLabelValue(owner));
    expect(value).toMatch(/^[0-9a-f]{40}$/);
    expect(ownerLabelValue(owner)).not.toBe(ownerLabelValue(`${owner}y`));
  });
});
