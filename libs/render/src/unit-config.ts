import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse } from 'yaml';
import { usesClusterValues } from './cluster-values';
import { RenderFailure } from './render-failure';
import { messageOf } from '@tidemark/contracts';

/** unitConfigFile is the optional file beside a unit's marker that says how to render it. */
export const unitConfigFile = 'tidemark-render.yaml';

const KustomizeImage = Type.Object({
  name: Type.String({ minLength: 1 }),
  newName: Type.Optional(Type.String({ minLength: 1 })),
  newTag: Type.Optional(Type.String({ minLength: 1 })),
  digest: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

const KustomizeReplicas = Type.Object({
  name: Type.String({ minLength: 1 }),
  /** A number, or a string such as "${cluster.variables.replicas}". */
  count: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1 })]),
}, { additionalProperties: false });

const KustomizePatchTarget = Type.Object({
  group: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  labelSelector: Type.Optional(Type.String()),
  annotationSelector: Type.Optional(Type.String()),
}, { additionalProperties: false });

const KustomizePatch = Type.Object({
  /** A strategic merge patch or a JSON 6902 patch, as YAML text; `${cluster.…}` is replaced inside its values only. */
  patch: Type.String({ minLength: 1, maxLength: 65_536 }),
  target: Type.Optional(KustomizePatchTarget),
}, { additionalProperties: false });

const StringMap = Type.Record(Type.String({ minLength: 1, maxLength: 317 }), Type.String({ maxLength: 65_536 }));

export const UnitConfigSchema = Type.Object({
  /** Render once per target cluster, with that cluster's values (set by itself when `${cluster.…}` appears). */
  perCluster: Type.Optional(Type.Boolean()),
  kustomize: Type.Optional(Type.Object({
    /** kustomize `images` applied over the unit's output, in a kustomization Tidemark writes around it. */
    images: Type.Optional(Type.Array(KustomizeImage)),
    /** kustomize `replicas` applied the same way. */
    replicas: Type.Optional(Type.Array(KustomizeReplicas)),
    /** Labels put on every object (not on selectors or pod templates), through a Component Tidemark generates. */
    labels: Type.Optional(StringMap),
    /** Annotations put on every object (kustomize commonAnnotations), the same way. */
    annotations: Type.Optional(StringMap),
    /** Patches applied the same way: a host name, a resource limit, any field per cluster. */
    patches: Type.Optional(Type.Array(KustomizePatch, { maxItems: 100 })),
  }, { additionalProperties: false })),
  helm: Type.Optional(Type.Object({
    /** @defaultValue the chart folder's name */
    releaseName: Type.Optional(Type.String({ pattern: '^[a-z0-9]([-a-z0-9]{0,51}[a-z0-9])?$' })),
    /** .Release.Namespace, and the namespace of every namespaced object the chart leaves without one. @defaultValue 'default' (objects without a namespace then go to the configured default namespace) */
    namespace: Type.Optional(Type.String({ pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' })),
    /** Values files, relative to the chart folder (they may be elsewhere in the repository), after the chart's values.yaml. */
    valuesFiles: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    /** Values given inline, after the files. */
    values: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** Values per cluster name, last. */
    clusterValues: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
    /** The Kubernetes version Capabilities report. @defaultValue the target cluster's, from its discovery (helm's own when rendered for no cluster) */
    kubeVersion: Type.Optional(Type.String({ minLength: 1 })),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

/** UnitConfig is a unit's validated tidemark-render.yaml (empty when it has none). */
export type UnitConfig = Static<typeof UnitConfigSchema> & { readonly perClusterNeeded: boolean };

/** parseUnitConfig validates a unit's tidemark-render.yaml; its errors name the file and field. */
export function parseUnitConfig(text: string | undefined, path: string): UnitConfig {
  if (text === undefined) return { perClusterNeeded: false };
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: 10 }) ?? {};
  } catch (error) {
    throw new RenderFailure('RenderConfigInvalid', `${path}: ${messageOf(error)}`, path);
  }
  const [first] = Value.Errors(UnitConfigSchema, value);
  if (first) throw new RenderFailure('RenderConfigInvalid', `${path}: ${first.path || '/'} ${first.message}`, path);
  const config = value as Static<typeof UnitConfigSchema>;
  const perClusterNeeded = config.perCluster ?? (usesClusterValues(text) || Object.keys(config.helm?.clusterValues ?? {}).length > 0);
  return { ...config, perClusterNeeded };
}
