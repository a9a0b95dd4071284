import { parse } from 'yaml';
import { RenderFailure } from '../render-failure';
import type { ChartReference } from './chart-reference';
import { messageOf } from '@tidemark/contracts';

/** IndexedArchive is where a chart version's archive is and the digest it must have. */
export interface IndexedArchive {
  url: URL;
  /** SHA-256, lower-case hex. */
  digest: string;
}

interface IndexEntry {
  version?: unknown;
  urls?: unknown;
  digest?: unknown;
}

/**
 * archiveInIndex finds a chart version in a repository's index.yaml (as `helm repo index`
 * writes it): its first URL, resolved against the repository's URL, and its digest. A version
 * the index lacks, or gives no SHA-256 digest for, is refused: nothing is rendered unverified.
 */
export function archiveInIndex(text: string, reference: ChartReference, what: string): IndexedArchive {
  let index: unknown;
  try {
    index = parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new RenderFailure('ChartRepositoryFailed', `${what}: the repository's index.yaml is not YAML: ${messageOf(error)}`);
  }
  const entries = (index as { entries?: Record<string, unknown> } | null)?.entries;
  const versions = entries && typeof entries === 'object' ? entries[reference.name] : undefined;
  if (!Array.isArray(versions)) throw new RenderFailure('ChartRepositoryFailed', `${what}: the repository's index.yaml has no chart named "${reference.name}"`);
  const wanted = reference.version.replace(/^v/, '');
  const entry = (versions as IndexEntry[]).find((candidate) => String(candidate?.version ?? '').replace(/^v/, '') === wanted);
  if (!entry) throw new RenderFailure('ChartRepositoryFailed', `${what}: the repository's index.yaml has no version ${reference.version} of "${reference.name}"`);
  const [first] = Array.isArray(entry.urls) ? entry.urls : [];
  if (typeof first !== 'string' || first === '') throw new RenderFailure('ChartRepositoryFailed', `${what}: the index entry has no URL`);
  const digest = typeof entry.digest === 'string' ? entry.digest.replace(/^sha256:/, '').toLowerCase() : '';
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new RenderFailure('ChartDigestMismatch', `${what}: the index entry has no SHA-256 digest, so the archive cannot be verified; it is refused`);
  let url: URL;
  try {
    url = new URL(first, reference.repository.base);
  } catch {
    throw new RenderFailure('ChartRepositoryFailed', `${what}: the index entry's URL is not a URL`);
  }
  return { url, digest };
}
