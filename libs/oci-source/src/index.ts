// Owns: reading OCI artifact sources from a registry (the distribution API): resolving a tag, semver range
//   or digest to a manifest digest, logging in (Basic and the token flow) under the trust rules, pulling the
//   manifest and its layer within size and inflation limits, extracting the layer's files (no links, devices
//   or `..`), and verifying cosign key signatures. It writes nothing to disk; git-source keeps the files.
// Entry points: OciArtifactSource, parseOciUrl, parseCosignKeys.
// Records: none.
// May import: @tidemark/contracts.

export { OciArtifactSource, type PulledArtifact } from './oci-artifact-source';
export { parseOciUrl, ociReferenceOf } from './oci-reference';
export { parseCosignKeys } from './cosign-signature';
export type { RegistryCredentials } from './registry-client';
export type { ArtifactFile } from './extract-layer';
