import { describe, expect, it } from 'vitest';
import { parseDependencyRef, parseDependsOn } from './dependency-ref';

describe('parseDependencyRef', () => {
  it('reads group/version/Kind/namespace/name and drops the version', () => {
    expect(parseDependencyRef('apps/v1/Deployment/db/postgres')).toEqual({ objectKey: 'apps/Deployment/db/postgres', description: 'Deployment db/postgres' });
  });

  it('reads group/Kind/namespace/name, the core group, a cluster-scoped object and a source', () => {
    expect(parseDependencyRef('tidemark.dev/WebApp/shop/api').objectKey).toBe('tidemark.dev/WebApp/shop/api');
    expect(parseDependencyRef('v1/ConfigMap/shop/settings').objectKey).toBe('core/ConfigMap/shop/settings');
    expect(parseDependencyRef('core/Namespace/shop').objectKey).toBe('core/Namespace/_/shop');
    expect(parseDependencyRef('apiextensions.k8s.io/v1/CustomResourceDefinition/certificates.cert-manager.io').objectKey)
      .toBe('apiextensions.k8s.io/CustomResourceDefinition/_/certificates.cert-manager.io');
    expect(parseDependencyRef(' infra:apps/v1/Deployment/db/postgres ')).toEqual({ objectKey: 'apps/Deployment/db/postgres', source: 'infra', description: 'Deployment db/postgres' });
  });

  it.each(['postgres', 'apps/v1/deployment/db/postgres', 'apps/v1/Deployment/db/pg/extra', 'apps/v1/Deployment/DB/postgres', 'a/b/c/Deployment/x', 'Bad Source:apps/v1/Deployment/db/pg'])('refuses %s, saying the form', (text) => {
    expect(() => parseDependencyRef(text)).toThrow(/is not a dependency: write \[source:\]group\/version\/Kind\/namespace\/name/);
  });
});

describe('parseDependsOn', () => {
  it('splits on commas, drops duplicates and collects problems', () => {
    const parsed = parseDependsOn(['apps/v1/Deployment/db/postgres, tidemark.dev/WebApp/shop/api,', 'apps/Deployment/db/postgres', 'nonsense']);
    expect(parsed.refs.map((ref) => ref.objectKey)).toEqual(['apps/Deployment/db/postgres', 'tidemark.dev/WebApp/shop/api']);
    expect(parsed.problems).toEqual([expect.stringContaining('"nonsense" is not a dependency')]);
  });
});
