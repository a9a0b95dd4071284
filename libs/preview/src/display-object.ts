import { isRedactedObject, redactedText, type KubernetesManifest } from '@tidemark/contracts';

const serverMetadata = ['managedFields', 'resourceVersion', 'uid', 'generation', 'creationTimestamp', 'selfLink'];

/**
 * displayObject is an object as the preview shows it side by side: without status and the
 * metadata the server keeps for itself, and with every value of a Secret (or of an object
 * annotated tidemark.dev/redact: "true") replaced, so a report in Redis never holds them.
 */
export function displayObject(object: KubernetesManifest | undefined): Record<string, unknown> | undefined {
  if (!object) return undefined;
  const { status: _status, ...rest } = object as KubernetesManifest & { status?: unknown };
  const metadata: Record<string, unknown> = { ...object.metadata };
  for (const field of serverMetadata) delete metadata[field];
  const shown: Record<string, unknown> = { ...rest, metadata };
  if (!isRedactedObject(object)) return shown;
  for (const field of ['data', 'stringData', 'binaryData']) {
    const values = shown[field];
    if (values && typeof values === 'object') shown[field] = Object.fromEntries(Object.keys(values).map((key) => [key, redactedText]));
  }
  if (object.kind !== 'Secret' && shown.spec !== undefined) shown.spec = redactedText;
  return shown;
}
