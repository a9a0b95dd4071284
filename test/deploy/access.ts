// What the reconciler's ServiceAccount must be allowed and refused, from deploy/README.md's RBAC list.
import type { AccessQuestion } from './api-server';

const applyVerbs = ['get', 'list', 'watch', 'create', 'patch', 'delete'];
const appliedKinds: [group: string, resource: string][] = [
  ['', 'configmaps'], ['', 'services'], ['', 'serviceaccounts'],
  ['apps', 'deployments'], ['autoscaling', 'horizontalpodautoscalers'],
  ['networking.k8s.io', 'ingresses'], ['networking.k8s.io', 'networkpolicies'], ['policy', 'poddisruptionbudgets'],
  ['k8spatterns.com', 'configwatchers'], ['tidemark.dev', 'webapps'],
];
const ownKinds: [group: string, resource: string][] = [['k8spatterns.com', 'configwatchers'], ['tidemark.dev', 'webapps']];
const crds = 'customresourcedefinitions';
const crdGroup = 'apiextensions.k8s.io';

/** reconcilerAllowed lists every access the reconciler needs; `namespace` is any namespace it reconciles. */
export function reconcilerAllowed(namespace: string): AccessQuestion[] {
  return [
    ...appliedKinds.flatMap(([group, resource]) => applyVerbs.map((verb) => ({ verb, group, resource, namespace }))),
    ...ownKinds.flatMap(([group, resource]) => [
      ...['get', 'patch', 'update'].map((verb) => ({ verb, group, resource, subresource: 'status', namespace })),
      { verb: 'update', group, resource, subresource: 'finalizers', namespace },
    ]),
    { verb: 'list', group: crdGroup, resource: crds },
    { verb: 'create', group: crdGroup, resource: crds },
    { verb: 'watch', group: crdGroup, resource: crds },
    ...['webapps.tidemark.dev', 'configwatchers.k8spatterns.com'].flatMap((name) => ['get', 'patch'].map((verb) => ({ verb, group: crdGroup, resource: crds, name }))),
    // Storage version migration: WebApps written back unchanged, then the CRD's storedVersions trimmed.
    { verb: 'update', group: 'tidemark.dev', resource: 'webapps', namespace },
    { verb: 'patch', group: crdGroup, resource: crds, subresource: 'status', name: 'webapps.tidemark.dev' },
    { verb: 'create', group: '', resource: 'events', namespace },
    { verb: 'patch', group: '', resource: 'events', namespace },
    { verb: 'list', group: '', resource: 'pods', namespace },
    { verb: 'delete', group: '', resource: 'pods', namespace },
    ...['get', 'list', 'watch', 'create', 'patch'].map((verb) => ({ verb, group: '', resource: 'namespaces' })),
  ];
}

/** reconcilerRefused lists accesses that least privilege leaves out. */
export function reconcilerRefused(namespace: string): AccessQuestion[] {
  return [
    { verb: 'update', group: 'apps', resource: 'deployments', namespace },
    { verb: 'get', group: '', resource: 'secrets', namespace },
    { verb: 'list', group: '', resource: 'secrets', namespace },
    { verb: 'create', group: '', resource: 'pods', namespace },
    { verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace },
    { verb: 'delete', group: '', resource: 'namespaces', name: namespace },
    { verb: 'delete', group: crdGroup, resource: crds, name: 'webapps.tidemark.dev' },
    { verb: 'patch', group: crdGroup, resource: crds, name: 'certificates.cert-manager.io' },
    { verb: 'patch', group: crdGroup, resource: crds, subresource: 'status', name: 'configwatchers.k8spatterns.com' },
    { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
    { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'rolebindings', namespace },
    { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'cluster-admin' },
    { verb: 'create', group: 'batch', resource: 'jobs', namespace },
    { verb: 'list', group: '', resource: 'nodes' },
    { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace },
  ];
}

/** dashboardRefused: the dashboard has no Kubernetes access at all. */
export function dashboardRefused(namespace: string): AccessQuestion[] {
  return [
    { verb: 'get', group: '', resource: 'configmaps', namespace },
    { verb: 'list', group: '', resource: 'pods', namespace },
    { verb: 'get', group: '', resource: 'secrets', namespace },
    { verb: 'list', group: 'tidemark.dev', resource: 'webapps', namespace },
  ];
}
