import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { RegistryClient } from './registry-client';
import { OciSourceError } from './oci-source-error';

/** cosignSignatureTag is where `cosign sign --key` stores an artifact's signatures: `sha256-<hex>.sig`. */
export function cosignSignatureTag(digest: string): string {
  return `${digest.replace(':', '-')}.sig`;
}

const simpleSigning = 'application/vnd.dev.cosign.simplesigning.v1+json';
const signatureAnnotation = 'dev.cosignproject.cosign/signature';
const maxSignatureManifestBytes = 256 * 1024;
const maxPayloadBytes = 64 * 1024;

/** CosignKeys are parsed public keys (PEM: ECDSA P-256 as `cosign generate-key-pair` makes, RSA or Ed25519). */
export function parseCosignKeys(pems: readonly string[], field: string): KeyObject[] {
  return pems.map((pem, index) => {
    try {
      return createPublicKey(pem);
    } catch {
      throw new OciSourceError('SourceSpecInvalid', `${field}[${index}]: is not a PEM public key (-----BEGIN PUBLIC KEY-----, as cosign.pub)`);
    }
  });
}

/**
 * verifyCosignSignature checks that one of `keys` signed the artifact at `digest`, in cosign's
 * key-based format: the manifest tagged `sha256-<hex>.sig` has simple-signing layers whose
 * annotation holds a signature over the layer's payload, and the payload names the digest. The
 * payload's digest is checked, so a signature of another artifact (a replayed .sig) is refused.
 * Transparency-log entries and keyless (Fulcio) certificates are not checked.
 */
export async function verifyCosignSignature(client: RegistryClient, digest: string, keys: readonly KeyObject[], source: string): Promise<void> {
  const tag = cosignSignatureTag(digest);
  const what = `source ${source}: cosign signature ${tag}`;
  const response = await client.send({ method: 'GET', path: `manifests/${tag}`, accept: 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json', maxBytes: maxSignatureManifestBytes, what });
  if (response.status === 404) throw new OciSourceError('OciNotSigned', `source ${source}: the artifact ${digest} has no cosign signature (no tag ${tag}) and the source requires one; nothing of it is applied`);
  if (response.status !== 200) throw new OciSourceError('OciNotSigned', `${what}: the registry answered ${response.status}`);
  const layers = signatureLayers(response.body);
  for (const layer of layers) {
    const payload = await client.send({ method: 'GET', path: `blobs/${layer.digest}`, maxBytes: maxPayloadBytes, what });
    if (payload.status !== 200 || sha256(payload.body) !== layer.digest) continue;
    if (!keys.some((key) => verifies(key, payload.body, layer.signature))) continue;
    if (payloadDigest(payload.body) === digest) return;
  }
  throw new OciSourceError('OciNotSigned', `source ${source}: none of the ${layers.length} signature(s) at ${tag} is by a key the source trusts over artifact ${digest}; nothing of it is applied`);
}

function signatureLayers(body: Buffer): Array<{ digest: string; signature: Buffer }> {
  let manifest: { layers?: Array<{ mediaType?: unknown; digest?: unknown; annotations?: Record<string, unknown> }> };
  try {
    manifest = JSON.parse(body.toString('utf8')) as typeof manifest;
  } catch {
    return [];
  }
  return (Array.isArray(manifest.layers) ? manifest.layers : []).flatMap((layer) => {
    const signature = layer.annotations?.[signatureAnnotation];
    if (layer.mediaType !== simpleSigning || typeof layer.digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(layer.digest) || typeof signature !== 'string') return [];
    return [{ digest: layer.digest, signature: Buffer.from(signature, 'base64') }];
  }).slice(0, 16);
}

function verifies(key: KeyObject, payload: Buffer, signature: Buffer): boolean {
  try {
    return verify(key.asymmetricKeyType === 'ed25519' ? null : 'sha256', payload, key, signature);
  } catch {
    return false;
  }
}

/** payloadDigest reads the artifact digest a simple-signing payload vouches for. */
function payloadDigest(payload: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(payload.toString('utf8')) as { critical?: { type?: unknown; image?: { 'docker-manifest-digest'?: unknown } } };
    if (parsed.critical?.type !== 'cosign container image signature') return undefined;
    const digest = parsed.critical.image?.['docker-manifest-digest'];
    return typeof digest === 'string' ? digest : undefined;
  } catch {
    return undefined;
  }
}

export function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
