import type { KubernetesManifest } from '@tidemark/contracts';
import type { OpenApiSchema } from './crd-schema';

const dnsLabel = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

/** NamespacedKind names a namespaced kind of Tidemark's with one served and stored version and a status. */
export interface NamespacedKind {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  version: string;
  /** `kubectl get` columns. */
  columns: { name: string; type: string; jsonPath: string }[];
  spec: OpenApiSchema;
  status: OpenApiSchema;
}

/**
 * namespacedKindCrd is the CRD envelope the Source and Cluster kinds share: namespaced, in the
 * `tidemark` category, one version with a status subresource, a required spec, and a name that must
 * be a DNS label (it becomes part of job, key and record names).
 */
export function namespacedKindCrd(kind: NamespacedKind): KubernetesManifest {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${kind.group}` },
    spec: {
      group: kind.group,
      names: { kind: kind.kind, listKind: `${kind.kind}List`, plural: kind.plural, singular: kind.singular, shortNames: kind.shortNames, categories: ['tidemark'] },
      scope: 'Namespaced',
      versions: [{
        name: kind.version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: kind.columns,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: kind.spec,
              status: kind.status,
            },
            'x-kubernetes-validations': [{ rule: `self.metadata.name.matches('${dnsLabel}')`, message: 'metadata.name must be a DNS label (lower-case letters, digits and -, at most 63)' }],
          },
        },
      }],
    },
  };
}
