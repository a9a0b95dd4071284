/** GitHostProvider names the API a host speaks. Forgejo speaks Gitea's. */
export type GitHostProvider = 'gitea' | 'github' | 'gitlab';

/** GitHostTarget is one repository on one host, and the token to write with (from a Secret or file). */
export interface GitHostTarget {
  provider: GitHostProvider;
  /** The API's base, e.g. https://gitea.example/api/v1, https://api.github.com, https://gitlab.example/api/v4. */
  apiUrl: string;
  /** `owner/name`; for GitLab the project's path `group/name` (or its numeric id). */
  repository: string;
  token: string;
}

/** checkTarget refuses an API URL that is not https (http only on loopback) and a repository that is not a path; it returns the API's root. */
export function checkTarget(target: GitHostTarget): { root: string } | { error: string } {
  let base: URL;
  try {
    base = new URL(target.apiUrl);
  } catch {
    return { error: `apiUrl "${target.apiUrl.slice(0, 100)}" is not a URL` };
  }
  if (base.protocol !== 'https:' && !(base.protocol === 'http:' && /^(127\.|localhost$|\[::1\]$)/.test(base.hostname))) return { error: 'apiUrl must use https (http only on loopback)' };
  const segments = target.repository.split('/');
  const pathLike = segments.length >= 2 && segments.every((segment) => /^[A-Za-z0-9._-]+$/.test(segment) && !/^\.+$/.test(segment));
  if (!pathLike && !/^\d+$/.test(target.repository)) return { error: `repository "${target.repository.slice(0, 100)}" is not owner/name` };
  return { root: target.apiUrl.replace(/\/+$/, '') };
}

/** authHeaders: JSON, and the provider's token header. Gitea documents "token <t>"; GitHub takes "Bearer <t>"; GitLab PRIVATE-TOKEN. */
export function authHeaders(target: GitHostTarget): Record<string, string> {
  const json = { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'tidemark' };
  if (target.provider === 'gitlab') return { ...json, 'private-token': target.token };
  return { ...json, authorization: target.provider === 'gitea' ? `token ${target.token}` : `Bearer ${target.token}` };
}

/** repositoryPath is `owner/name` for a URL path (Gitea, GitHub), each part encoded. */
export function repositoryPath(target: GitHostTarget): string {
  const [owner, ...name] = target.repository.split('/');
  return `${encodeURIComponent(owner!)}/${encodeURIComponent(name.join('/'))}`;
}
