import { isMap, parseAllDocuments, type Document } from 'yaml';
import type { ClusterCapabilities } from '@tidemark/contracts';

/**
 * The cluster-scoped kinds of Kubernetes itself (`group/Kind`), for a render with no cluster
 * discovery at hand; with discovery, the cluster's own list is used besides these.
 */
const builtinClusterScoped: readonly string[] = [
  '/Namespace', '/Node', '/PersistentVolume', '/ComponentStatus',
  'rbac.authorization.k8s.io/ClusterRole', 'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition', 'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration', 'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'storage.k8s.io/StorageClass', 'storage.k8s.io/CSIDriver', 'storage.k8s.io/CSINode', 'storage.k8s.io/VolumeAttachment',
  'scheduling.k8s.io/PriorityClass', 'node.k8s.io/RuntimeClass', 'networking.k8s.io/IngressClass',
  'certificates.k8s.io/CertificateSigningRequest', 'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration', 'policy/PodSecurityPolicy',
];

/**
 * inReleaseNamespace gives every namespaced object of a chart's output that has no namespace the
 * release's, as `helm install --namespace` does (helm template leaves them without one). Scope is
 * decided as helm decides it, by discovery: the cluster's answer when there is one, Kubernetes' own
 * cluster-scoped kinds, and the CRDs in the output itself. A stream that does not parse is returned
 * as it is, for the loader to report.
 */
export function inReleaseNamespace(text: string, namespace: string, capabilities: ClusterCapabilities | undefined): string {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents) || documents.some((document) => document.errors.length > 0)) return text;
  const clusterScoped = new Set([...builtinClusterScoped, ...(capabilities?.clusterScopedKinds ?? []), ...documents.flatMap(clusterScopedCrdKind)]);
  let changed = false;
  for (const document of documents) {
    const kind = document.get('kind');
    const apiVersion = document.get('apiVersion');
    const metadata = document.get('metadata');
    if (typeof kind !== 'string' || typeof apiVersion !== 'string' || !isMap(metadata)) continue;
    if (clusterScoped.has(`${groupOf(apiVersion)}/${kind}`) || metadata.get('namespace')) continue;
    metadata.set('namespace', namespace);
    changed = true;
  }
  if (!changed) return text;
  return documents.map((document) => {
    // Each document says `---` itself, so none runs into the one before.
    document.directives.docStart = true;
    return document.toString({ lineWidth: 0 });
  }).join('');
}

/** clusterScopedCrdKind is the `group/Kind` a CRD in the output serves, when it is cluster-scoped. */
function clusterScopedCrdKind(document: Document): string[] {
  if (document.get('kind') !== 'CustomResourceDefinition' || document.getIn(['spec', 'scope']) !== 'Cluster') return [];
  const group = document.getIn(['spec', 'group']);
  const kind = document.getIn(['spec', 'names', 'kind']);
  return typeof group === 'string' && typeof kind === 'string' ? [`${group}/${kind}`] : [];
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
