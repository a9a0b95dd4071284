import type { KeyObject } from 'node:crypto';
import { TransientError } from '@tidemark/contracts';
import { sha256, verifyCosignSignature } from './cosign-signature';
import { extractLayer, type ArtifactFile } from './extract-layer';
import type { OciReference } from './oci-reference';
import { OciSourceError } from './oci-source-error';
import { RegistryClient, type RegistryCredentials } from './registry-client';
import { manifestMediaTypes, resolveRef, type OciRef, type ResolvedRef } from './resolve-ref';

/** fluxContentMediaType is the layer `flux push artifact` writes: a tar.gz of the manifests. */
export const fluxContentMediaType = 'application/vnd.cncf.flux.content.v1.tar+gzip';
/** The layers an artifact's manifests may be in: Flux's, then plain tarballs (what `oras push` of a folder or a .tar writes). */
export const artifactLayerMediaTypes = [fluxContentMediaType, 'application/vnd.oci.image.layer.v1.tar+gzip', 'application/vnd.oci.image.layer.v1.tar'];

/** OciLimits bound one artifact: its download, its files and its inflated size. */
export interface OciLimits {
  /** Most bytes of the layer as stored (compressed), checked from the manifest before downloading. */
  maxLayerBytes: number;
  /** Largest file once extracted. */
  maxFileBytes: number;
  /** Most bytes the layer may inflate to. */
  maxInflatedBytes: number;
}

export interface OciArtifactSourceOptions {
  source: string;
  reference: OciReference;
  ref: OciRef;
  limits: OciLimits;
  credentials?: () => Promise<RegistryCredentials | undefined>;
  /** An extra CA (PEM) trusted for this registry. */
  ca?: string;
  /** The layer media type to take. @defaultValue the first layer of a type in artifactLayerMediaTypes */
  layerMediaType?: string;
  /** Public keys one of which must have signed the artifact (cosign). @defaultValue no signature needed */
  cosignKeys?: readonly KeyObject[];
  /** Time for one registry request. @defaultValue 30000 */
  timeoutMs?: number;
}

/** PulledArtifact is one artifact's files and what its manifest says of it. */
export interface PulledArtifact {
  digest: string;
  tag?: string;
  files: ArtifactFile[];
  /** The manifest's `org.opencontainers.image.created`, when it is a valid time. */
  created?: Date;
  /** Where the artifact says it was built from (`org.opencontainers.image.source` and `.revision`), for messages. */
  origin?: string;
}

const maxManifestBytes = 4 * 1024 * 1024;

/**
 * OciArtifactSource reads one OCI source: `resolve` asks which digest the ref names (one HEAD for
 * a tag: the cheap poll), `pull` downloads that manifest and its layer, verifies both digests and
 * the signature when keys are given, and extracts the files within the limits.
 */
export class OciArtifactSource {
  readonly client: RegistryClient;

  constructor(private readonly options: OciArtifactSourceOptions) {
    this.client = new RegistryClient({
      reference: options.reference, source: options.source,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  resolve(): Promise<ResolvedRef> {
    return resolveRef(this.client, this.options.ref, this.options.source);
  }

  /** pull reads the artifact at a digest; the signature is checked before anything is downloaded of the layer. */
  async pull(resolved: ResolvedRef): Promise<PulledArtifact> {
    const { source, limits } = this.options;
    const { digest } = resolved;
    const what = `source ${source}: artifact ${digest}`;
    if (this.options.cosignKeys) await verifyCosignSignature(this.client, digest, this.options.cosignKeys, source);
    const manifestResponse = await this.client.send({ method: 'GET', path: `manifests/${digest}`, accept: manifestMediaTypes.join(', '), maxBytes: maxManifestBytes, what });
    if (manifestResponse.status === 404) throw new TransientError('OciTagNotFound', `${what}: the registry has no such manifest`);
    if (manifestResponse.status !== 200) throw new TransientError('OciRegistryFailed', `${what}: the registry answered ${manifestResponse.status} for the manifest`);
    if (sha256(manifestResponse.body) !== digest) throw new OciSourceError('OciDigestMismatch', `${what}: the manifest the registry sent does not have that digest`);
    const manifest = parseManifest(manifestResponse.body, what);
    const layer = this.chooseLayer(manifest, what);
    if (layer.size > limits.maxLayerBytes) {
      throw new OciSourceError('OciTooLarge', `${what}: the layer is ${layer.size} bytes, more than this source may download (${limits.maxLayerBytes}); nothing of it was downloaded`);
    }
    const blob = await this.client.send({ method: 'GET', path: `blobs/${layer.digest}`, maxBytes: layer.size, what: `${what}: layer ${layer.digest}` });
    if (blob.status !== 200) throw new TransientError('OciRegistryFailed', `${what}: the registry answered ${blob.status} for layer ${layer.digest}`);
    if (sha256(blob.body) !== layer.digest) throw new OciSourceError('OciDigestMismatch', `${what}: layer ${layer.digest} does not have its digest`);
    const files = await extractLayer(blob.body, { maxFileBytes: limits.maxFileBytes, maxInflatedBytes: limits.maxInflatedBytes }, what);
    const created = manifest.annotations['org.opencontainers.image.created'];
    const createdAt = created ? new Date(created) : undefined;
    const origin = [manifest.annotations['org.opencontainers.image.source'], manifest.annotations['org.opencontainers.image.revision']].filter(Boolean).join('@');
    return {
      digest, files,
      ...(resolved.tag ? { tag: resolved.tag } : {}),
      ...(createdAt && !Number.isNaN(createdAt.getTime()) ? { created: createdAt } : {}),
      ...(origin ? { origin: origin.slice(0, 300) } : {}),
    };
  }

  private chooseLayer(manifest: ParsedManifest, what: string): Layer {
    const wanted = this.options.layerMediaType ? [this.options.layerMediaType] : artifactLayerMediaTypes;
    for (const type of wanted) {
      const layer = manifest.layers.find((candidate) => candidate.mediaType === type);
      if (layer) return layer;
    }
    const found = [...new Set(manifest.layers.map((layer) => layer.mediaType))].join(', ') || 'no layers';
    throw new OciSourceError('OciLayerRefused', `${what}: no layer of type ${wanted.join(' or ')} (the manifest has ${found.slice(0, 300)})`);
  }
}

interface Layer {
  mediaType: string;
  digest: string;
  size: number;
}

interface ParsedManifest {
  layers: Layer[];
  annotations: Record<string, string>;
}

function parseManifest(body: Buffer, what: string): ParsedManifest {
  let parsed: { mediaType?: unknown; layers?: unknown; annotations?: unknown };
  try {
    parsed = JSON.parse(body.toString('utf8')) as typeof parsed;
  } catch {
    throw new OciSourceError('OciManifestInvalid', `${what}: the manifest is not JSON`);
  }
  if (typeof parsed.mediaType === 'string' && /index|manifest\.list/.test(parsed.mediaType)) {
    throw new OciSourceError('OciManifestInvalid', `${what}: the ref names an index (${parsed.mediaType}), not one artifact; name the artifact's own tag or digest`);
  }
  const layers = (Array.isArray(parsed.layers) ? parsed.layers : []).flatMap((layer: unknown) => {
    const { mediaType, digest, size } = (layer ?? {}) as Record<string, unknown>;
    return typeof mediaType === 'string' && typeof digest === 'string' && /^sha256:[0-9a-f]{64}$/.test(digest) && typeof size === 'number' && size >= 0
      ? [{ mediaType, digest, size }] : [];
  });
  const annotations: Record<string, string> = {};
  if (typeof parsed.annotations === 'object' && parsed.annotations !== null) {
    for (const [key, value] of Object.entries(parsed.annotations)) if (typeof value === 'string') annotations[key] = value;
  }
  return { layers, annotations };
}
