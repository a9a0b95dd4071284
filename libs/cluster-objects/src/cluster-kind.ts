import { Type, type Static } from '@sinclair/typebox';

export const clusterGroup = 'tidemark.dev';
export const clusterVersion = 'v1alpha1';
export const clusterApiVersion = `${clusterGroup}/${clusterVersion}`;
export const clusterKind = 'Cluster';
export const clusterPlural = 'clusters';
/** The finalizer a Cluster with `prune: true` carries: it holds the deleted Cluster until its objects are pruned. */
export const clusterFinalizer = 'tidemark.dev/cluster-prune';
/** The key of the kubeconfig in its Secret unless the Cluster names another (as config-file clusters default). */
export const defaultKubeconfigKey = 'kubeconfig';

/**
 * ClusterObjectSpec is a Cluster object's spec: its labels (what placement selects on) and its
 * credentials, a kubeconfig in a Secret of the Cluster's own namespace, or the reconciler's own
 * ServiceAccount (inCluster). The same kubeconfig rules as a config-file cluster's apply.
 */
export const ClusterObjectSpec = Type.Object({
  labels: Type.Optional(Type.Record(Type.String({ maxLength: 317 }), Type.String({ maxLength: 63 }), { description: 'What Placements and cluster selectors match on.' })),
  kubeconfigSecretRef: Type.Optional(Type.Object({
    name: Type.String({ minLength: 1, maxLength: 253, description: "A Secret in the Cluster's own namespace." }),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 253, description: 'The key holding the kubeconfig; "kubeconfig" unless set.' })),
  }, { additionalProperties: false })),
  inCluster: Type.Optional(Type.Boolean({ description: "Reach the cluster Tidemark runs in, as its own ServiceAccount." })),
  allowExecPlugins: Type.Optional(Type.Boolean({ description: 'Let the kubeconfig run a credential plugin (exec or auth-provider); honoured only where tidemark.yaml sets clusterObjects.allowExecPlugins.' })),
  prune: Type.Optional(Type.Boolean({ description: 'On deleting the Cluster, prune the objects Tidemark applied there (through the prune guards and the mass-prune hold) before it goes; otherwise they stay.' })),
}, { additionalProperties: false });
export type ClusterObjectSpec = Static<typeof ClusterObjectSpec>;
