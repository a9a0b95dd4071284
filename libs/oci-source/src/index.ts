// Owns: reading OCI artifact sources from a registry (the distribution API): resolving a tag, semver range
//   or digest to a manifest digest, logging in (Basic and the token flow) under the trust rules, pulling the
//   manifest and its layer within size and inflation limits, extracting the layer's files (no links, devices
//   or `..`), and verifying cosign key signatures. It writes nothing to disk; git-source keeps the files.
// Entry points: OciArtifactSource, parseOciUrl, parseCosignKeys.
// Records: none.
// May import: @tidemark/contracts.

export { OciArtifactSource, artifactLayerMediaTypes, fluxContentMediaType, type OciArtifactSourceOptions, type OciLimits, type PulledArtifact } from './oci-artifact-source';
export { parseOciUrl, ociReferenceOf, isLoopbackHost, type OciReference } from './oci-reference';
export { parseCosignKeys, cosignSignatureTag } from './cosign-signature';
export { OciSourceError } from './oci-source-error';
export type { RegistryCredentials } from './registry-client';
export type { OciRef, ResolvedRef } from './resolve-ref';
export type { ArtifactFile } from './extract-layer';
