// Owns: the Source kind: its CRD (generated from the TypeBox type config-file sources are parsed with),
//   parsing Source objects, credentials from Secrets (rotating ones, and GitHub App tokens), and the
//   controller that keeps the app's set of sources equal to the Source objects in the management cluster.
// Entry points: SourceController, parseSourceObject, sourceCrd.
// Records: none in Redis (its state is the Source objects' status).
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/git-source.

export { sourceCrd, sourceCrdHeader } from './source-crd';
export { SourceObjectSpec, SecretReference, sourceApiVersion, sourceFinalizer, sourceGroup, sourceKind, sourcePlural, pruneAnnotation } from './source-kind';
export { parseSourceObject, sourceNameOf, type SecretName, type SourceDeclaration, type SourceObjectRules } from './parse-source-object';
export { credentialsFromSecret, type GitHubAppKeys, type SecretCredentials } from './secret-credentials';
export { gitCredentialsSecretType, secretSourceLabel, secretSourcesAnnotation } from './secret-opt-in';
export { decryptionKeysFromSecret, type DecryptionKeys } from './decryption-keys';
export { GitHubAppTokens, type GitHubAppTokensOptions } from './github-app-tokens';
export { servesNamespace, type ServedNamespaces } from './served-namespaces';
export { SourceController, type SourceControllerOptions, type SourceHooks } from './source-controller';
export { statusFromPoll, stalledStatus, SourceReason, type SourceObjectStatus } from './source-object-status';
