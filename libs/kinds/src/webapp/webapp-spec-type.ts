import { Type, type Static } from '@sinclair/typebox';
import type { PlainObject } from '../shared/plain-object';
import { webAppSpecV1alpha1Of, webAppSpecV1beta1Of, type envVarSchema } from './crd/webapp-spec-fields';

/** FeatureSettings is what every entry under spec.features has; each feature adds its own fields. */
export type FeatureSettings = { enabled?: boolean } & PlainObject;

/**
 * FeatureEntryV1beta1 is one enabled feature of a v1beta1 WebApp: its name, and its settings
 * under a member of the same name (`{name: ingress, ingress: {host: …}}`). Being listed enables it.
 */
export type FeatureEntryV1beta1 = { name: string } & { [settings: string]: PlainObject | string | undefined };

const anySettings = Type.Unsafe<FeatureSettings>(Type.Record(Type.String(), Type.Unknown()));
const anyOverrides = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()));

/**
 * webAppSpecType is what the registry checks when it parses a CR: v1alpha1's spec, built from the
 * same fields as the CRD's (crd/webapp-spec-fields.ts), but looser on purpose in two places:
 * spec.features and spec.override are open records (any feature or component name, any settings),
 * because the registry reads CRs for any feature set and the API server checks each feature's
 * settings and CEL rules against the CRD. TypeBox ignores the CRD-only keywords (default,
 * x-kubernetes-*).
 */
export const webAppSpecType = webAppSpecV1alpha1Of(Type.Record(Type.String(), anySettings), anyOverrides);

/** webAppSpecV1beta1Type is v1beta1's spec with the same open features and overrides; it gives WebAppSpecV1beta1. */
export const webAppSpecV1beta1Type = webAppSpecV1beta1Of(Type.Array(Type.Unsafe<FeatureEntryV1beta1>(Type.Object({ name: Type.String() }))), anyOverrides);

/** EnvVar is a container environment variable. */
export type EnvVar = Static<typeof envVarSchema>;

/**
 * WebAppSpec is the spec render reads: v1alpha1's shape plus what only v1beta1 can say (its
 * image pull policy). Objects of either served version become one with `webAppSpecOf`; each feature
 * types its own settings (see `settingsOf`), so a new feature needs no change here.
 */
export type WebAppSpec = Static<typeof webAppSpecType> & { imagePullPolicy?: string };

/** WebAppSpecV1beta1 is the spec of a tidemark.dev/v1beta1 WebApp. */
export type WebAppSpecV1beta1 = Static<typeof webAppSpecV1beta1Type>;

/** ImagePullPolicy is a container's imagePullPolicy; v1beta1 makes it a field of the image. */
export type ImagePullPolicy = NonNullable<WebAppSpecV1beta1['image']['pullPolicy']>;
