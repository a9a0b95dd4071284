// Owns: the Source kind: its CRD (generated from the TypeBox type config-file sources are parsed with),
//   parsing Source objects, credentials from Secrets (rotating ones, and GitHub App tokens), and the
//   controller that keeps the app's set of sources equal to the Source objects in the management cluster.
// Entry points: SourceController, parseSourceObject, sourceCrd.
// Records: none in Redis (its state is the Source objects' status).
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/git-source.

export { sourceCrd, sourceCrdHeader } from './source-crd';
export { parseSourceObject, type SourceObjectRules } from './parse-source-object';
export { GitHubAppTokens } from './github-app-tokens';
export { type ServedNamespaces } from './served-namespaces';
export { SourceController } from './source-controller';
