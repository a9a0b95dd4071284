import { createHash } from 'node:crypto';
import type { ManagedFieldsEntry } from './managed-fields';

/**
 * Annotation on every object Tidemark applies, naming the Git object it came from as
 * `<source>:<objectKey>`. The pipeline writes it; the watches read it to wake the owner.
 */
export const ownerAnnotation = 'tidemark.dev/owner';

/**
 * Label on every object Tidemark applies: a hash of the owner annotation's value, so the cluster
 * can be asked for Tidemark's objects (a label selector) when Redis has lost its records. It is a
 * hint for finding objects, never a proof: anyone may write a label; ownership is the annotation.
 */
export const ownerLabel = 'tidemark.dev/owner-hash';

/** GitOwner is the Git object an applied object belongs to. */
export interface GitOwner {
  source: string;
  objectKey: string;
}

/** formatOwner gives the owner annotation's value. */
export function formatOwner(owner: GitOwner): string {
  return `${owner.source}:${owner.objectKey}`;
}

/**
 * ownerLabelValue is the owner label's value for an owner annotation's value: 40 hex digits of its
 * sha256 (160 bits), a valid label value whatever the owner's length or characters.
 */
export function ownerLabelValue(owner: string): string {
  return createHash('sha256').update(owner).digest('hex').slice(0, 40);
}

/** ownerOf reads the owner annotation of an object; undefined when it has none. */
export function ownerOf(annotations: Record<string, string> | undefined): GitOwner | undefined {
  const owner = annotations?.[ownerAnnotation];
  const colon = owner?.indexOf(':') ?? -1;
  if (!owner || colon <= 0) return undefined;
  return { source: owner.slice(0, colon), objectKey: owner.slice(colon + 1) };
}

/**
 * appliedOwnerAnnotation tells whether an Apply entry of the field manager owns the owner
 * annotation: Tidemark applied it, not a status write or another manager.
 */
export function appliedOwnerAnnotation(managedFields: unknown, fieldManager: string): boolean {
  if (!Array.isArray(managedFields)) return false;
  return (managedFields as ManagedFieldsEntry[]).some((entry) =>
    entry.manager === fieldManager && entry.operation === 'Apply' && !entry.subresource && hasOwnerField(entry.fieldsV1));
}

function hasOwnerField(fieldsV1: unknown): boolean {
  const metadata = (fieldsV1 as Record<string, unknown> | undefined)?.['f:metadata'] as Record<string, unknown> | undefined;
  const annotations = metadata?.['f:annotations'] as Record<string, unknown> | undefined;
  return annotations !== undefined && `f:${ownerAnnotation}` in annotations;
}
