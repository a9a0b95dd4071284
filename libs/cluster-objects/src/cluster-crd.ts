import { Type } from '@sinclair/typebox';
import { namespacedKindCrd, withCelRules, type KubernetesManifest } from '@tidemark/contracts';
import { ClusterObjectSpec, clusterGroup, clusterKind, clusterPlural, clusterVersion } from './cluster-kind';

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
  // Namespaced, in Tidemark's own namespace: its kubeconfig Secret sits beside it, so a Role there is all it needs.
  // The name is the cluster's name in jobs, queues, keys and status records.
  return namespacedKindCrd({
    group: clusterGroup, kind: clusterKind, plural: clusterPlural, singular: 'cluster', shortNames: ['tmcluster'], version: clusterVersion,
    columns: [
      { name: 'Reachable', type: 'string', jsonPath: '.status.conditions[?(@.type=="Reachable")].status' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Version', type: 'string', jsonPath: '.status.serverVersion' },
      { name: 'Last contact', type: 'date', jsonPath: '.status.lastContact' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    spec: withCelRules(ClusterObjectSpec, [credentialsRule]), status: ClusterObjectStatus,
  });
}
