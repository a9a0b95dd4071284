import { parseAllDocuments } from 'yaml';
import { RenderFailure } from '../render-failure';

/** Values shorter than this are not looked for: "1" or "no" would be found everywhere (scrubSecrets skips them too). */
const shortestCheckedValue = 3;

/**
 * refuseDecryptedOutsideSecrets fails a unit whose rendered output puts a value decrypted from one
 * of its sops files anywhere but a Secret's `data` or `stringData`: in a ConfigMap (a
 * configMapGenerator reading an encrypted file), an annotation, an object's name. Such a value
 * would be readable by whoever may read that object, and shown wherever objects are shown. The
 * message names the object and field, never the value.
 */
export function refuseDecryptedOutsideSecrets(text: string, secrets: readonly string[], folder: string): void {
  const needles = secrets.filter((secret) => secret.length >= shortestCheckedValue).flatMap((secret) => [secret, Buffer.from(secret).toString('base64')]);
  if (needles.length === 0) return;
  for (const document of parseAllDocuments(text)) {
    const object: unknown = document.toJS({ maxAliasCount: 100 });
    if (!isRecord(object)) continue;
    const secret = object.apiVersion === 'v1' && object.kind === 'Secret';
    const field = fieldHolding(secret ? withoutSecretData(object) : object, needles, '');
    if (field === undefined) continue;
    const metadata = isRecord(object.metadata) ? object.metadata : {};
    const name = [metadata.namespace, metadata.name].filter((part) => typeof part === 'string').join('/');
    throw new RenderFailure('DecryptedValueOutsideSecret',
      `${folder}: ${String(object.kind ?? 'an object')} ${name || '(unnamed)'} holds a value decrypted from a sops file in ${field || 'its name or kind'}; decrypted values may go only into a Secret's data or stringData, so nothing of this unit is applied`, folder);
  }
}

/** withoutSecretData is a Secret without its values; its data keys stay, as they are shown wherever the Secret is. */
function withoutSecretData(object: Record<string, unknown>): Record<string, unknown> {
  const keysOnly = (values: unknown) => (isRecord(values) ? Object.fromEntries(Object.keys(values).map((key) => [key, ''])) : undefined);
  return { ...object, data: keysOnly(object.data), stringData: keysOnly(object.stringData) };
}

/** fieldHolding gives the path of the first key or string that contains a needle, or undefined. */
function fieldHolding(value: unknown, needles: readonly string[], path: string): string | undefined {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const text = String(value);
    return needles.some((needle) => text.includes(needle)) ? path : undefined;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = fieldHolding(item, needles, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key;
    if (needles.some((needle) => key.includes(needle))) return path ? `${path} (a key)` : '(a top-level key)';
    const found = fieldHolding(item, needles, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
