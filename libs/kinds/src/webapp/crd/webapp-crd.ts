import type { KubernetesManifest } from '../../kind-plugin';
import type { WebAppFeature } from '../features/webapp-feature';
import { baseComponentDeclarations } from '../render/base-components';
import { webAppGroup, webAppKind, webAppPlural, webAppVersion } from '../webapp-types';
import { webAppSpecSchema } from './webapp-spec-schema';
import { webAppStatusSchema } from './webapp-status-schema';

const printerColumns = [
  { name: 'Image', type: 'string', jsonPath: '.spec.image' },
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'Desired replicas; empty when autoscaling owns them.' },
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** webAppCrd builds the WebApp CRD for a feature set (the built-in one unless told otherwise). */
export function webAppCrd(features: readonly WebAppFeature[]): KubernetesManifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${webAppPlural}.${webAppGroup}` },
    spec: {
      scope: 'Namespaced',
      group: webAppGroup,
      versions: [
        {
          name: webAppVersion,
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                spec: webAppSpecSchema(features, baseComponentDeclarations),
                status: webAppStatusSchema,
              },
            },
          },
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns,
        },
      ],
      names: { kind: webAppKind, singular: 'webapp', plural: webAppPlural, listKind: 'WebAppList' },
    },
  };
}
