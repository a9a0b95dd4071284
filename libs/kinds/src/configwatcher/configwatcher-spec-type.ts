import { Type } from '@sinclair/typebox';

/**
 * configWatcherSpecType is the shape ConfigWatcherSpec relies on, checked when the registry
 * parses a CR (the CRD's OpenAPI schema, enforced by the API server, is the full rule).
 */
export const configWatcherSpecType = Type.Object({
  configMap: Type.String({ minLength: 1 }),
  podSelector: Type.Object({ matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())) }),
  strategy: Type.Optional(Type.Union([Type.Literal('DeletePods'), Type.Literal('RolloutRestart')])),
});
