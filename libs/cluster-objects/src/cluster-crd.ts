import { Type } from '@sinclair/typebox';
import type { KubernetesManifest } from '@tidemark/contracts';
import { crdSchemaOf } from '@tidemark/source-objects';
import { ClusterObjectSpec, clusterGroup, clusterKind, clusterPlural, clusterVersion } from './cluster-kind';

const dnsLabel = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

const ClusterObjectStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer()),
  conditions: Type.Optional(Type.Array(Type.Object({
    type: Type.String(),
    status: Type.String(),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    lastTransitionTime: Type.Optional(Type.String()),
    observedGeneration: Type.Optional(Type.Integer()),
  }))),
  serverVersion: Type.Optional(Type.String({ description: "The API server's gitVersion at the last contact." })),
  lastContact: Type.Optional(Type.String({ description: 'When the API server last answered (RFC 3339).' })),
});

// Checked at admission too: exactly one way in, so a Cluster without credentials never reaches the reconciler.
const credentialsRule = {
  rule: 'has(self.kubeconfigSecretRef) != (has(self.inCluster) && self.inCluster)',
  message: 'set exactly one of kubeconfigSecretRef or inCluster: true',
};

/** clusterCrdHeader opens deploy/crds/clusters.tidemark.dev.yaml. */
export const clusterCrdHeader = '# Generated from libs/cluster-objects by `npx tsx scripts/generate-crds.ts`; do not edit by hand.\n';

/** clusterCrd is the Cluster kind's CRD; its spec schema is generated from the TypeBox type the reconciler parses with. */
export function clusterCrd(): KubernetesManifest {
  const spec = crdSchemaOf(ClusterObjectSpec);
  spec['x-kubernetes-validations'] = [credentialsRule];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${clusterPlural}.${clusterGroup}` },
    spec: {
      group: clusterGroup,
      names: { kind: clusterKind, listKind: `${clusterKind}List`, plural: clusterPlural, singular: 'cluster', shortNames: ['tmcluster'], categories: ['tidemark'] },
      // Namespaced, in Tidemark's own namespace: its kubeconfig Secret sits beside it, so a Role there is all it needs.
      scope: 'Namespaced',
      versions: [{
        name: clusterVersion,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Reachable', type: 'string', jsonPath: '.status.conditions[?(@.type=="Reachable")].status' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Version', type: 'string', jsonPath: '.status.serverVersion' },
          { name: 'Last contact', type: 'date', jsonPath: '.status.lastContact' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec,
              status: crdSchemaOf(ClusterObjectStatus),
            },
            // The name is the cluster's name in jobs, queues, keys and status records.
            'x-kubernetes-validations': [{ rule: `self.metadata.name.matches('${dnsLabel}')`, message: 'metadata.name must be a DNS label (lower-case letters, digits and -, at most 63)' }],
          },
        },
      }],
    },
  };
}
