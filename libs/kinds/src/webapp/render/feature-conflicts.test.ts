import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { appContainer, byKind, renderSpec } from '../../testing/webapp-fixtures';
import type { WebAppFeature } from '../features/webapp-feature';
import { webAppFeatures } from '../features/index';

/** testFeature is a feature that sets one env var, to make two features meet on a key. */
function testFeature(id: string, value: string): WebAppFeature {
  return {
    id,
    schema: Type.Object({ enabled: Type.Optional(Type.Boolean()) }),
    components: [],
    configure: () => [],
    manage: (_context, managers) => managers.envVar({ name: 'LOG_LEVEL', value }),
  };
}

const spec = { image: 'web', features: { quiet: { enabled: true }, loud: { enabled: true }, metrics: { enabled: true } } };

describe('feature conflicts in render', () => {
  it('fails with FeatureConflict naming both features and the key', () => {
    expect(() => renderSpec(spec, [...webAppFeatures, testFeature('quiet', 'warn'), testFeature('loud', 'debug')])).toThrow(
      expect.objectContaining({
        code: 'FeatureConflict',
        message: 'Features "quiet" and "loud" both write deployment.spec.template.spec.containers[app].env[LOG_LEVEL] with different values ({"name":"LOG_LEVEL","value":"warn"} vs {"name":"LOG_LEVEL","value":"debug"}); disable one of them or change its settings.',
      }),
    );
  });

  it('accepts two features that agree', () => {
    const objects = renderSpec(spec, [...webAppFeatures, testFeature('quiet', 'info'), testFeature('loud', 'info')]);
    expect(appContainer(byKind(objects, 'Deployment')).env).toEqual([
      { name: 'METRICS_PORT', value: '9090' },
      { name: 'LOG_LEVEL', value: 'info' },
    ]);
  });

  it('runs only enabled features', () => {
    const objects = renderSpec({ ...spec, features: { ...spec.features, loud: { enabled: false } } }, [...webAppFeatures, testFeature('quiet', 'warn'), testFeature('loud', 'debug')]);
    expect(appContainer(byKind(objects, 'Deployment')).env).toContainEqual({ name: 'LOG_LEVEL', value: 'warn' });
  });

  it('fails when a feature requires a component it does not declare', () => {
    const broken: WebAppFeature = { ...testFeature('broken', 'x'), configure: () => ['cronJob'] };
    expect(() => renderSpec({ image: 'web', features: { broken: { enabled: true } } }, [broken])).toThrow(expect.objectContaining({ code: 'UnknownComponent' }));
  });
});
