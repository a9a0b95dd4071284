import semver from 'semver';
import { TransientError } from '@tidemark/contracts';
import type { RegistryClient } from './registry-client';
import { OciSourceError } from './oci-source-error';

/** OciRef is what an OCI source follows: a tag, the highest tag in a semver range, or one digest. */
export type OciRef = { readonly tag: string } | { readonly semver: string } | { readonly digest: string };

/** ResolvedRef is the manifest digest a ref points at now, and the tag it came from. */
export interface ResolvedRef {
  digest: string;
  tag?: string;
}

/** manifestMediaTypes are the manifests an artifact may be: OCI (what oras, flux and helm push) and Docker's v2. */
export const manifestMediaTypes = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json'];
const manifestAccept = manifestMediaTypes.join(', ');
const digestPattern = /^sha256:[0-9a-f]{64}$/;
const maxTagListBytes = 1024 * 1024;
const maxTagPages = 20;

/**
 * resolveRef asks the registry which manifest the ref names, with one HEAD request for a tag (the
 * cheap poll: nothing is downloaded while the digest stays), the tag list then a HEAD for a semver
 * range, and no request at all for a digest.
 */
export async function resolveRef(client: RegistryClient, ref: OciRef, source: string): Promise<ResolvedRef> {
  if ('digest' in ref) return { digest: ref.digest };
  const tag = 'tag' in ref ? ref.tag : await highestTag(client, ref.semver, source);
  const what = `source ${source}: manifest of tag ${tag}`;
  const response = await client.send({ method: 'HEAD', path: `manifests/${encodeURIComponent(tag)}`, accept: manifestAccept, maxBytes: 0, what });
  if (response.status === 404) throw new TransientError('OciTagNotFound', `${what}: ${client.reference.origin}/${client.reference.repository} has no tag ${tag}; the source keeps its last revision until it appears.`);
  if (response.status !== 200) throw new TransientError('OciRegistryFailed', `${what}: the registry answered ${response.status}`);
  const digest = String(response.headers['docker-content-digest'] ?? '');
  if (!digestPattern.test(digest)) throw new OciSourceError('OciDigestMissing', `${what}: the registry answered without a sha256 Docker-Content-Digest header, so the revision cannot be known without downloading`);
  return { digest, tag };
}

/** highestTag lists the repository's tags (following the registry's pages within its origin) and picks the highest in the range. */
async function highestTag(client: RegistryClient, range: string, source: string): Promise<string> {
  const what = `source ${source}: tags of ${client.reference.repository}`;
  let best: string | undefined;
  let path: string | undefined = 'tags/list?n=1000';
  for (let page = 0; path && page < maxTagPages; page += 1) {
    const response = await client.send({ method: 'GET', path, maxBytes: maxTagListBytes, what });
    if (response.status !== 200) throw new TransientError('OciRegistryFailed', `${what}: the registry answered ${response.status}`);
    for (const tag of tagsOf(response.body)) {
      if (semver.valid(tag) && semver.satisfies(tag, range) && (!best || semver.gt(tag, best))) best = tag;
    }
    path = nextPage(response.headers.link, client.reference.repository);
  }
  if (!best) throw new TransientError('OciTagNotFound', `${what}: no tag matches ${range}; the source keeps its last revision until one appears.`);
  return best;
}

function tagsOf(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { tags?: unknown };
    return Array.isArray(parsed.tags) ? parsed.tags.filter((tag): tag is string => typeof tag === 'string' && tag.length <= 128) : [];
  } catch {
    return [];
  }
}

/** nextPage reads an RFC 5988 Link header's next page, kept within the repository's own tag list. */
function nextPage(link: string | string[] | undefined, repository: string): string | undefined {
  const value = Array.isArray(link) ? link[0] : link;
  const target = value && /<([^>]+)>\s*;\s*rel="?next"?/.exec(value)?.[1];
  if (!target) return undefined;
  const url = new URL(target, 'https://registry.invalid');
  const prefix = `/v2/${repository}/`;
  return url.pathname === `${prefix}tags/list` ? `tags/list${url.search}` : undefined;
}
