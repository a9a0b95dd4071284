import { createHash } from 'node:crypto';
import { formatObjectKey, groupOf, type KubernetesManifest } from '@tidemark/contracts';

/**
 * Manifest is a Kubernetes object as written in Git. Only its identity (apiVersion, kind,
 * metadata.name, metadata.namespace) is checked here; the API server validates the rest.
 */
export type Manifest = KubernetesManifest;

/** IdentifiedManifest is a manifest with its object key and a fingerprint of its content. */
export interface IdentifiedManifest {
  manifest: Manifest;
  objectKey: string;
  /** Changes whenever the object's content changes; used to tell changed objects in a changed file. */
  fingerprint: string;
}

const forbidden = /[/\s]/;

/**
 * identifyManifest checks that a parsed document is an object with apiVersion, kind and
 * metadata.name, and returns its key; otherwise a reason. The namespace is left as written:
 * the key uses '' when it is absent and the pipeline applies the default later.
 */
export function identifyManifest(value: unknown): IdentifiedManifest | { reason: string } {
  if (!isRecord(value)) return { reason: 'the document is not a mapping (a Kubernetes object)' };
  const { apiVersion, kind, metadata } = value;
  if (typeof apiVersion !== 'string' || apiVersion === '') return { reason: 'apiVersion is missing' };
  if (typeof kind !== 'string' || kind === '') return { reason: 'kind is missing' };
  if (!isRecord(metadata)) return { reason: `metadata is missing from ${kind}` };
  const { name, namespace } = metadata;
  if (typeof name !== 'string' || name === '') return { reason: `metadata.name is missing from ${kind}` };
  if (namespace !== undefined && typeof namespace !== 'string') return { reason: `metadata.namespace of ${kind} ${name} is not a string` };
  for (const [field, text] of [['kind', kind], ['metadata.name', name], ['metadata.namespace', namespace ?? '']] as const) {
    if (forbidden.test(text)) return { reason: `${field} "${text}" contains a slash or white space` };
  }
  const manifest = value as Manifest;
  const objectKey = formatObjectKey({ group: groupOf(apiVersion), kind, namespace: namespace ?? '', name });
  const fingerprint = createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22);
  return { manifest, objectKey, fingerprint };
}

/** isRecord tells whether a parsed YAML value is a mapping. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
