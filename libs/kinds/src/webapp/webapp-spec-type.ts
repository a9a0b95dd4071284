import { Type } from '@sinclair/typebox';

const plainObject = Type.Record(Type.String(), Type.Unknown());

/**
 * webAppSpecType is the shape WebAppSpec relies on, checked when the registry parses a CR. It
 * is looser than the CRD's schema (webapp-spec-schema.ts), which the API server enforces:
 * features add their own settings, so unknown fields pass.
 */
export const webAppSpecType = Type.Object({
  image: Type.String({ minLength: 1 }),
  replicas: Type.Optional(Type.Integer({ minimum: 0 })),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  env: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), value: Type.Optional(Type.String()), valueFrom: Type.Optional(plainObject) }))),
  resources: Type.Optional(Type.Object({ limits: Type.Optional(plainObject), requests: Type.Optional(plainObject) })),
  features: Type.Optional(Type.Record(Type.String(), plainObject)),
  override: Type.Optional(Type.Record(Type.String(), plainObject)),
  dependsOn: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
});
