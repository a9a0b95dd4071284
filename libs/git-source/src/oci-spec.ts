import { Type, type Static } from '@sinclair/typebox';
import { parseCosignKeys, parseOciUrl } from '@tidemark/oci-source';

/** OciInput is the `oci` block of an oci:// source: how its registry is reached and its artifacts verified. */
export const OciInput = Type.Object({
  certificateAuthority: Type.Optional(Type.String({ minLength: 1, maxLength: 65_536, description: 'A CA certificate (PEM) the registry\'s certificate may chain to, besides the system\'s roots.' })),
  insecure: Type.Optional(Type.Boolean({ description: 'Plain http; allowed only for a loopback registry.' })),
  layerMediaType: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The layer to read. Default: Flux\'s application/vnd.cncf.flux.content.v1.tar+gzip, else the first OCI tar or tar+gzip layer.' })),
  cosignKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 16_384 }), { maxItems: 16, description: 'cosign public keys (PEM); one must have signed the artifact (its sha256-<digest>.sig tag), else nothing of it is applied.' })),
}, { additionalProperties: false });
type OciInputValue = Static<typeof OciInput>;

/** SourceOci is a parsed `oci` block. */
export interface SourceOci {
  readonly certificateAuthority?: string;
  /** @defaultValue false */
  readonly insecure: boolean;
  readonly layerMediaType?: string;
  /** PEM public keys; an empty list means no signature is needed. */
  readonly cosignKeys: readonly string[];
}

/**
 * checkOciSource says what is wrong with an oci:// source, as a field and a sentence: its URL, a
 * Git-only ref (branch, commit) or Git-only setting (commit signatures), or a key that is not one.
 */
export function checkOciSource(input: { url: string; ref: object; verify?: unknown; oci?: OciInputValue }, where: string): { field: string; message: string } | undefined {
  const parsed = parseOciUrl(input.url, { insecure: input.oci?.insecure ?? false });
  if ('problem' in parsed) return { field: `${where}.url`, message: `the OCI URL ${parsed.problem}` };
  if ('branch' in input.ref || 'commit' in input.ref) return { field: `${where}.ref`, message: 'an OCI source follows a tag, a semver range or a digest (sha256:…), not a branch or commit' };
  if (input.verify) return { field: `${where}.verify`, message: 'commit signatures are for Git sources; an OCI source names its cosign keys in oci.cosignKeys' };
  try {
    parseCosignKeys(input.oci?.cosignKeys ?? [], `${where}.oci.cosignKeys`);
  } catch (error) {
    return { field: `${where}.oci.cosignKeys`, message: error instanceof Error ? error.message.replace(/^.*?\]: /, '') : String(error) };
  }
  return undefined;
}

export function ociOf(input: OciInputValue | undefined): SourceOci {
  return Object.freeze({
    ...(input?.certificateAuthority ? { certificateAuthority: input.certificateAuthority } : {}),
    insecure: input?.insecure ?? false,
    ...(input?.layerMediaType ? { layerMediaType: input.layerMediaType } : {}),
    cosignKeys: Object.freeze([...(input?.cosignKeys ?? [])]),
  });
}
