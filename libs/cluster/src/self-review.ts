import type { ClusterConnection } from './connection';

/** ownUsername asks the API server who this connection acts as (SelfSubjectReview). */
export async function ownUsername(connection: ClusterConnection): Promise<string> {
  const review = await connection.client.request<{ status?: { userInfo?: { username?: string } } }>({
    method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    what: `ask who Tidemark is on ${connection.name}`,
  });
  const username = review.status?.userInfo?.username;
  if (!username) throw new Error(`cluster ${connection.name} did not say which user Tidemark acts as (SelfSubjectReview gave no username)`);
  return username;
}
