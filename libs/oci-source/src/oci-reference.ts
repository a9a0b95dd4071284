import { TerminalError } from '@tidemark/contracts';

/** OciReference is where an OCI source's artifacts live: a registry origin and a repository in it. */
export interface OciReference {
  /** https://host[:port], or http://host:port for a loopback registry marked insecure. */
  readonly origin: string;
  /** host[:port], as cosign's signature payload names the image (`docker-reference`). */
  readonly host: string;
  /** The repository path in the registry, e.g. `team/app-manifests`. */
  readonly repository: string;
}

// The distribution spec's repository name: path components of lower-case alphanumerics and separators.
const repositoryPattern = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** isLoopbackHost says whether a host name (as URL.hostname gives it) is this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * parseOciUrl reads `oci://host[:port]/repository` (the form of Flux's OCIRepository and of
 * `helm push`). Registries speak https; plain http only to a loopback host marked insecure.
 * Returns a sentence saying what is wrong instead of a reference when the URL is refused.
 */
export function parseOciUrl(text: string, options: { insecure?: boolean } = {}): OciReference | { problem: string } {
  if (!text.startsWith('oci://')) return { problem: `"${text.slice(0, 80)}" does not start with oci://` };
  // URL parsing would fold `a/../b` (and `%2e%2e`) into `b`: one repository spelled two ways is refused instead.
  if (text.slice('oci://'.length).split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return { problem: `"${text.slice(0, 80)}" has a "." or ".." path segment` };
  }
  let url: URL;
  try {
    url = new URL(`https://${text.slice('oci://'.length)}`);
  } catch {
    return { problem: `"${text.slice(0, 80)}" is not a URL` };
  }
  if (url.username || url.password) return { problem: 'must not contain credentials; give the source auth (a Secret or a credentials file)' };
  if (url.search || url.hash) return { problem: 'must not have a query or fragment; name a tag, semver range or digest in ref' };
  const repository = url.pathname.replace(/^\/+/, '');
  if (!repositoryPattern.test(repository)) return { problem: `"${repository.slice(0, 80)}" is not a repository name (lower-case path components, e.g. oci://registry.example.com/team/manifests)` };
  if (repository.includes(':') || repository.includes('@')) return { problem: 'names a tag or digest; put it in ref instead' };
  if (options.insecure && !isLoopbackHost(url.hostname)) return { problem: `insecure (plain http) is allowed only for a loopback registry, not ${url.host}` };
  return Object.freeze({ origin: `${options.insecure ? 'http' : 'https'}://${url.host}`, host: url.host, repository });
}

/** ociReferenceOf is parseOciUrl for a URL already checked at start-up: a problem here is a terminal error. */
export function ociReferenceOf(text: string, options: { insecure?: boolean } = {}): OciReference {
  const parsed = parseOciUrl(text, options);
  if ('problem' in parsed) throw new TerminalError('SourceSpecInvalid', `OCI URL ${parsed.problem}`);
  return parsed;
}
