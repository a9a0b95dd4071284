import type { ClusterConnection } from './connection';
import type { ApiResource } from './resource-path';

/** AccessQuestion is one verb on one object: may the connection's identity do it? */
export interface AccessQuestion {
  verb: string;
  resource: Pick<ApiResource, 'group' | 'plural'>;
  /** undefined for a cluster-scoped object. */
  namespace: string | undefined;
  name: string;
}

/**
 * mayDo asks the API server's authorizer, with a SelfSubjectAccessReview sent under the
 * connection's identity (an impersonated ServiceAccount, say), whether that identity may do one
 * thing. It answers from RBAC alone, without trying the request; failures throw like any request.
 */
export async function mayDo(connection: ClusterConnection, question: AccessQuestion): Promise<boolean> {
  const { verb, resource, namespace, name } = question;
  const review = await connection.client.request<{ status?: { allowed?: boolean } }>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb, group: resource.group, resource: resource.plural, ...(namespace ? { namespace } : {}), name } },
    },
    what: `ask whether ${verb} ${resource.plural} ${namespace ? `${namespace}/` : ''}${name} is allowed`,
  });
  return review.status?.allowed === true;
}
