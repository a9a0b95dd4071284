import type { TSchema } from '@sinclair/typebox';
import { customResourceDefinition, kindObjectSchema, type KubernetesManifest } from '@tidemark/contracts';
import type { WebAppFeature } from '../features/webapp-feature';
import { baseComponentDeclarations } from '../render/base-components';
import { webAppGroup, webAppKind, webAppPlural, webAppStorageVersion, webAppVersionV1alpha1 } from '../webapp-types';
import { webAppSpecSchemaV1alpha1 } from './webapp-spec-schema';
import { webAppStatusSchema } from './webapp-status-schema';
import { webAppSpecSchemaV1beta1 } from './webapp-v1beta1-spec-schema';

/** Where the conversion webhook is, until the reconciler installs the CRD with its own address and CA. */
export const defaultConversionService = { namespace: 'tidemark', name: 'tidemark-reconciler', path: `/convert/${webAppPlural}.${webAppGroup}`, port: 9443 };

/** The deprecation warning kubectl prints for every v1alpha1 request. */
export const v1alpha1DeprecationWarning = `${webAppGroup}/${webAppVersionV1alpha1} WebApp is deprecated; use ${webAppGroup}/${webAppStorageVersion} (spec.image has repository and tag, spec.features is a list of named features). Both are served; see "Upgrading" in Tidemark's README.`;

const statusColumns = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', description: 'Whether the last reconcile applied Git and every owned object is healthy.' },
  { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', description: 'Why Ready has its value.' },
  { name: 'Revision', type: 'string', jsonPath: '.status.lastAppliedRevision', priority: 1, description: 'The Git commit last applied.' },
  { name: 'Message', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].message', priority: 1, description: 'What the last reconcile found.' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const replicasColumn = { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'Desired replicas; empty when autoscaling owns them.' };
const readyReplicasColumn = { name: 'Available', type: 'integer', jsonPath: '.status.readyReplicas', description: 'Ready pods of the Deployment.' };

/**
 * webAppCrd builds the WebApp CRD for a feature set: v1beta1, the storage version, and
 * v1alpha1, still served but deprecated. The API server converts between them through
 * Tidemark's conversion webhook; the reconciler fills in its address and CA when it installs
 * the CRD (the service below is where a deployment from deploy/ serves it).
 */
export function webAppCrd(features: readonly WebAppFeature[]): KubernetesManifest {
  return customResourceDefinition({
    group: webAppGroup,
    scope: 'Namespaced',
    names: { kind: webAppKind, singular: 'webapp', plural: webAppPlural, listKind: 'WebAppList', categories: ['tidemark'] },
    versions: [
      {
        name: webAppStorageVersion,
        storage: true,
        statusSubresource: true,
        schema: rootSchema(webAppSpecSchemaV1beta1(features, baseComponentDeclarations)),
        columns: [
          { name: 'Image', type: 'string', jsonPath: '.spec.image.repository', description: 'Image repository.' },
          { name: 'Tag', type: 'string', jsonPath: '.spec.image.tag', description: 'Image tag.' },
          replicasColumn,
          readyReplicasColumn,
          ...statusColumns,
        ],
      },
      {
        name: webAppVersionV1alpha1,
        storage: false,
        deprecationWarning: v1alpha1DeprecationWarning,
        statusSubresource: true,
        schema: rootSchema(webAppSpecSchemaV1alpha1(features, baseComponentDeclarations)),
        columns: [{ name: 'Image', type: 'string', jsonPath: '.spec.image', description: 'Container image.' }, replicasColumn, readyReplicasColumn, ...statusColumns],
      },
    ],
    conversion: {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: defaultConversionService } },
    },
  });
}

function rootSchema(spec: TSchema): TSchema {
  return kindObjectSchema(spec, webAppStatusSchema, {
    description: 'WebApp runs one containerised web app: a Deployment, a Service and a ServiceAccount, plus what its features add (autoscaling, ingress, config, disruption budget, network policy, metrics). Tidemark reconciles it from Git.',
    apiVersion: { description: 'tidemark.dev/v1beta1 (or the deprecated tidemark.dev/v1alpha1).' },
    kind: { description: 'WebApp.' },
  });
}
