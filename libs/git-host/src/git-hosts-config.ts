import { isAbsolute, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import type { GitHostProvider } from './host-target';
import { parseSshUrl } from '@tidemark/git-source';

const name = Type.String({ minLength: 1, maxLength: 253 });

/**
 * GitHostsInput: per source, where Tidemark posts commit statuses and preview comments. The token
 * is a Secret reference or a file, never a value in the config.
 */
export const GitHostsInput = Type.Array(Type.Object({
  source: Type.String({ minLength: 1 }),
  provider: Type.Union([Type.Literal('gitea'), Type.Literal('forgejo'), Type.Literal('github'), Type.Literal('gitlab')]),
  /** The API's base URL. @defaultValue from the source's URL: <origin>/api/v1 (Gitea), api.github.com or <origin>/api/v3, <origin>/api/v4 (GitLab) */
  apiUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** owner/name (GitLab: the project's path or id). @defaultValue the source URL's path */
  repository: Type.Optional(Type.String({ minLength: 1 })),
  token: Type.Union([
    Type.Object({ secretRef: Type.Object({ cluster: Type.Optional(name), namespace: name, name, key: Type.Optional(name) }, { additionalProperties: false }) }, { additionalProperties: false }),
    Type.Object({ file: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  ]),
  /** The dashboard's public URL; statuses link to its objects page for the source and cluster. @defaultValue no link */
  dashboardUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Statuses are named `<context>/<cluster>`. @defaultValue tidemark */
  context: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._/-]{1,64}$' })),
  /** Post the preview of a pull request as a comment on it. @defaultValue true */
  pullRequestComments: Type.Optional(Type.Boolean()),
}, { additionalProperties: false }));

/** GitHostTokenRef says where a Git host's token is read, at each request. */
export type GitHostTokenRef =
  | { readonly secretRef: { readonly cluster: string; readonly namespace: string; readonly name: string; readonly key: string } }
  | { readonly file: string };

/** GitHostConfig is one source's Git host, resolved: provider, API, repository, where the token is. */
export interface GitHostConfig {
  readonly source: string;
  readonly provider: GitHostProvider;
  readonly apiUrl: string;
  readonly repository: string;
  readonly token: GitHostTokenRef;
  readonly dashboardUrl?: string;
  readonly context: string;
  readonly pullRequestComments: boolean;
}

/** GitHostsContext: the sources' URLs, the clusters, the config file's folder, and how to say a field is wrong. */
export interface GitHostsContext {
  sourceUrls: ReadonlyMap<string, string>;
  clusters: readonly string[];
  base: string;
  invalid: (field: string, message: string) => Error;
}

/** gitHostsConfig resolves each entry: the source exists, the API URL and repository are given or derived, the Secret's cluster exists. */
export function gitHostsConfig(input: Static<typeof GitHostsInput> | undefined, context: GitHostsContext): GitHostConfig[] {
  const seen = new Set<string>();
  return (input ?? []).map((entry, index) => {
    const field = (name: string) => `gitHosts[${index}].${name}`;
    const url = context.sourceUrls.get(entry.source);
    if (url === undefined) throw context.invalid(field('source'), `no source is named "${entry.source}"`);
    if (seen.has(entry.source)) throw context.invalid(field('source'), `source "${entry.source}" has a Git host already`);
    seen.add(entry.source);
    const provider: GitHostProvider = entry.provider === 'forgejo' ? 'gitea' : entry.provider;
    const derived = deriveFromSourceUrl(url, provider);
    const apiUrl = entry.apiUrl ?? derived?.apiUrl;
    const repository = entry.repository ?? derived?.repository;
    if (!apiUrl) throw context.invalid(field('apiUrl'), `cannot be derived from the source URL; set it (e.g. https://gitea.example/api/v1)`);
    if (!repository) throw context.invalid(field('repository'), `cannot be derived from the source URL; set it to owner/name`);
    return {
      source: entry.source, provider, apiUrl: apiUrl.replace(/\/+$/, ''), repository,
      token: tokenRef(entry.token, field('token'), context),
      ...(entry.dashboardUrl ? { dashboardUrl: entry.dashboardUrl.replace(/\/+$/, '') } : {}),
      context: entry.context ?? 'tidemark',
      pullRequestComments: entry.pullRequestComments ?? true,
    };
  });
}

function tokenRef(token: Static<typeof GitHostsInput>[number]['token'], field: string, context: GitHostsContext): GitHostTokenRef {
  if ('file' in token) return { file: isAbsolute(token.file) ? token.file : resolve(context.base, token.file) };
  const ref = token.secretRef;
  const cluster = ref.cluster ?? context.clusters[0] ?? '';
  if (!context.clusters.includes(cluster)) throw context.invalid(`${field}.secretRef.cluster`, `no cluster is named "${cluster}"`);
  return { secretRef: { cluster, namespace: ref.namespace, name: ref.name, key: ref.key ?? 'token' } };
}

/**
 * deriveFromSourceUrl reads the API base and the repository from a clone URL such as
 * https://gitea.example/team/app.git: GitHub's API is api.github.com (or <origin>/api/v3 on
 * Enterprise Server), Gitea's <origin>/api/v1, GitLab's <origin>/api/v4. An SSH URL
 * (git@github.com:team/app.git, ssh://git@gitea.example:2222/team/app.git) names the host, whose
 * API is taken to be on https at its default port.
 */
export function deriveFromSourceUrl(sourceUrl: string, provider: GitHostProvider): { apiUrl: string; repository: string } | undefined {
  const ssh = parseSshUrl(sourceUrl);
  if (ssh) return 'target' in ssh ? fromRepositoryPath(new URL(`https://${ssh.target.host.includes(':') ? `[${ssh.target.host}]` : ssh.target.host}`), ssh.target.path, provider) : undefined;
  let url: URL;
  try {
    url = new URL(sourceUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return fromRepositoryPath(url, url.pathname, provider);
}

function fromRepositoryPath(url: URL, path: string, provider: GitHostProvider): { apiUrl: string; repository: string } | undefined {
  const segments = path.replace(/\.git\/?$/, '').split('/').filter(Boolean);
  if (segments.length < 2 || (provider !== 'gitlab' && segments.length !== 2)) return undefined;
  const repository = segments.map((segment) => decodeURIComponent(segment)).join('/');
  if (provider === 'github') return { apiUrl: url.hostname === 'github.com' ? 'https://api.github.com' : `${url.origin}/api/v3`, repository };
  return { apiUrl: `${url.origin}/api/${provider === 'gitlab' ? 'v4' : 'v1'}`, repository };
}
