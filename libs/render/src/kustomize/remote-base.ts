import { posix } from 'node:path';
import type { RepoReader } from '../repo-reader';

/** RemoteBase is a kustomization entry that names a folder of another Git repository, as read. */
export interface RemoteBase {
  /** The entry as written, for messages. */
  entry: string;
  /** The repository's clone URL: https (or http to a loopback host), no credentials, query or fragment. */
  repository: string;
  /** The repository in one spelling, for caching: host lower-cased, default port dropped, no trailing slash. */
  key: string;
  /** Host name (lower case) and port when not the scheme's default, as the allow-list names hosts. */
  host: string;
  /** The folder inside the repository, '.' for its root. */
  folder: string;
  /** The branch, tag or commit (`?ref=`, or kustomize's older `?version=`); absent means the default branch. */
  ref?: string;
}

/** OpenedRemoteBase is a remote base's repository, readable at the commit its ref resolved to. */
export interface OpenedRemoteBase {
  reader: RepoReader;
  commit: string;
  /** How the entry pins its revision: a commit or tag does; a branch or no ref at all follows whatever is pushed. */
  pinnedBy: 'commit' | 'tag' | 'branch' | 'nothing';
}

/**
 * RemoteBaseFetcher brings a remote base's repository into a local object cache with Tidemark's
 * own bounded Git client (git-source implements it, per source, with the operator's host list and
 * the source's limits and credentials). It throws a RenderFailure that names the entry.
 */
export interface RemoteBaseFetcher {
  /** The source it fetches for: rendered outputs are kept apart per owner. */
  readonly owner: string;
  open(base: RemoteBase): Promise<OpenedRemoteBase>;
}

/** RemoteBaseParse is a remote entry read, or why it cannot be fetched. */
export type RemoteBaseParse = { base: RemoteBase } | { problem: string };

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);
const knownQuery = new Set(['ref', 'version', 'timeout', 'submodules']);
const spelledAsHttps = 'write it as https://host/org/repo//folder?ref=<tag or commit>';

/**
 * parseRemoteBase reads a remote kustomization entry (see looksRemote) the way kustomize's
 * repospec does for the forms Tidemark fetches: `https://host/org/repo//folder?ref=v1`, the same
 * with `git::` before it, and `https://host/org/repo.git/folder?ref=v1`. SSH (`ssh://`, `git@host:`),
 * `file://`, host-only shorthands (`github.com/org/repo`), credentials in the URL and a repository
 * whose end cannot be told (no `//` and no `.git`) are refused with the reason.
 */
export function parseRemoteBase(entry: string): RemoteBaseParse {
  const text = entry.startsWith('git::') ? entry.slice('git::'.length) : entry;
  if (/^(ssh:\/\/|[\w.-]+@[\w.-]+:)/.test(text)) return { problem: `is an SSH remote base; Tidemark fetches remote bases over https only, so ${spelledAsHttps}` };
  if (!/^https?:\/\//i.test(text)) return { problem: `is not an https URL; ${spelledAsHttps}` };
  const checked = checkedUrl(text);
  if ('problem' in checked) return checked;
  const { url, host } = checked;
  const query = queryOf(url);
  if ('problem' in query) return query;
  const split = splitRepository(rawPathOf(text));
  if ('problem' in split) return split;
  const port = url.port ? `:${url.port}` : '';
  const origin = `${url.protocol}//${host}${port}`;
  const repository = `${origin}${split.repository}`;
  return {
    base: {
      entry, repository, key: repository.replace(/\/+$/, ''), host: `${host}${port}`, folder: split.folder,
      ...(query.ref ? { ref: query.ref } : {}),
    },
  };
}

/** checkedUrl reads the URL and refuses credentials, a fragment, and plain http off loopback. */
function checkedUrl(text: string): { url: URL; host: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `is not a URL; ${spelledAsHttps}` };
  }
  if (url.username || url.password) return { problem: 'carries credentials in the URL; remote bases use the credentials of their own source, for its own host only' };
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const loopback = loopbackHosts.has(host) || host.startsWith('127.');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return { problem: `uses ${url.protocol}//; remote bases are fetched over https (plain http only on loopback)` };
  if (url.hash) return { problem: 'has a #fragment, which kustomize does not read' };
  return { url, host };
}

/** rawPathOf is the URL's path as written: URL() would fold `//` and `..` away, which decide where the repository ends. */
function rawPathOf(text: string): string {
  const afterScheme = text.slice(text.indexOf('//') + 2);
  const slash = afterScheme.indexOf('/');
  if (slash < 0) return '/';
  const path = afterScheme.slice(slash);
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

function queryOf(url: URL): { ref?: string } | { problem: string } {
  for (const name of url.searchParams.keys()) {
    if (!knownQuery.has(name)) return { problem: `has a query parameter "${name.slice(0, 40)}" kustomize does not read (ref, version, timeout, submodules)` };
  }
  if (url.searchParams.get('submodules') === 'true') return { problem: 'asks for submodules; Tidemark never follows submodules' };
  const refs = [...url.searchParams.getAll('ref'), ...url.searchParams.getAll('version')];
  if (refs.length > 1) return { problem: 'names more than one ref' };
  const ref = refs[0];
  if (ref !== undefined && !/^[\w][\w./-]{0,254}$/.test(ref)) return { problem: `has a ref "${ref.slice(0, 40)}" that is not a branch, tag or commit name` };
  if (ref?.split('/').includes('..')) return { problem: `has a ref "${ref.slice(0, 40)}" with ".."` };
  return ref ? { ref } : {};
}

/** splitRepository splits a URL path into the repository and the folder in it, at `//` or after `.git`. */
function splitRepository(path: string): { repository: string; folder: string } | { problem: string } {
  const double = path.indexOf('//');
  let repository: string;
  let folder: string;
  if (double >= 0) {
    repository = path.slice(0, double);
    folder = path.slice(double + 2);
  } else {
    const match = /^(.*?\.git)(\/.*)?$/i.exec(path);
    if (!match?.[1]) return { problem: `does not say where the repository ends and the folder starts; ${spelledAsHttps}` };
    repository = match[1];
    folder = match[2] ?? '';
  }
  if (!/^\/[^/]/.test(repository) || repository.split('/').some((part) => part === '..' || part === '.')) return { problem: 'does not name a repository path on its host' };
  const normalised = posix.normalize(`./${folder}`).replace(/\/+$/, '');
  if (normalised.startsWith('..') || folder.includes('\\') || folder.includes('\0')) return { problem: 'names a folder that leads out of its repository' };
  return { repository, folder: normalised === '' ? '.' : normalised };
}
