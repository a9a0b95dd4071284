import { describe, expect, it } from 'vitest';
import { forbiddenMessage } from './served-watch';

describe('forbiddenMessage', () => {
  it('names the verb, the resource and the namespace, and what grants it with Helm and Kustomize', () => {
    const message = forbiddenMessage('Source', 'watch', 'team-b', 'sources.tidemark.dev is forbidden');
    expect(message).toContain('may not watch sources.tidemark.dev in namespace team-b (403 Forbidden: sources.tidemark.dev is forbidden)');
    expect(message).toContain('list team-b in the value sourceObjects.namespaces');
    expect(message).toContain('components/source-objects with metadata.namespace: team-b');
  });

  it('points a cluster-wide watch at the ClusterRole that "*" renders', () => {
    const message = forbiddenMessage('Secret', 'list', '', 'secrets is forbidden');
    expect(message).toContain('may not list secrets cluster-wide');
    expect(message).toContain('sourceObjects.namespaces: ["*"] renders a ClusterRole');
  });
});
