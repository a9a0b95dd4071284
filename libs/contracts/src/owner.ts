/**
 * Annotation on every object Tidemark applies, naming the Git object it came from as
 * `<source>:<objectKey>`. The pipeline writes it; the watches read it to wake the owner.
 */
export const ownerAnnotation = 'tidemark.dev/owner';

/** GitOwner is the Git object an applied object belongs to. */
export interface GitOwner {
  source: string;
  objectKey: string;
}

/** formatOwner gives the owner annotation's value. */
export function formatOwner(owner: GitOwner): string {
  return `${owner.source}:${owner.objectKey}`;
}

/** ownerOf reads the owner annotation of an object; undefined when it has none. */
export function ownerOf(annotations: Record<string, string> | undefined): GitOwner | undefined {
  const owner = annotations?.[ownerAnnotation];
  const colon = owner?.indexOf(':') ?? -1;
  if (!owner || colon <= 0) return undefined;
  return { source: owner.slice(0, colon), objectKey: owner.slice(colon + 1) };
}
