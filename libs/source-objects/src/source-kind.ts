import { Type, type Static } from '@sinclair/typebox';
import { SourceSpecInput } from '@tidemark/git-source';

export const sourceGroup = 'tidemark.dev';
export const sourceVersion = 'v1alpha1';
export const sourceApiVersion = `${sourceGroup}/${sourceVersion}`;
export const sourceKind = 'Source';
export const sourcePlural = 'sources';
/** The finalizer that holds a deleted Source until its objects are pruned. */
export const sourceFinalizer = 'tidemark.dev/source-prune';
/** With the value "false", deleting a Source leaves its objects in the clusters (orphans them). */
export const pruneAnnotation = 'tidemark.dev/prune';

/** SecretReference names a Secret; `namespace` defaults to the Source's and needs the operator's permission to differ. */
export const SecretReference = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253, description: 'Name of the Secret.' }),
  namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: "The Secret's namespace; only another one than the Source's when the operator allows cross-namespace references." })),
}, { additionalProperties: false });
export type SecretReference = Static<typeof SecretReference>;

/**
 * SourceObjectSpec is a Source object's spec: every field a config-file source has (the same
 * TypeBox type, so the two never drift apart) except its name (metadata.name) and resolved
 * credentials, which come from Secrets by reference.
 */
export const SourceObjectSpec = Type.Composite([
  Type.Omit(SourceSpecInput, ['name', 'auth']),
  Type.Object({
    secretRef: Type.Optional(Type.Composite([SecretReference], {
      description: 'Secret with the Git credentials: username and password, bearerToken, extraHeader ("Name: value"), or githubAppID, githubAppInstallationID (or githubAppInstallationOwner) and githubAppPrivateKey; for an ssh:// or scp-like URL, identity (the deploy key), known_hosts (required: host keys are pinned) and password (the key\'s passphrase, if any).',
    })),
    webhook: Type.Optional(Type.Object({
      provider: Type.Union([Type.Literal('github'), Type.Literal('gitea'), Type.Literal('gogs'), Type.Literal('gitlab'), Type.Literal('generic')]),
      secretRef: Type.Composite([SecretReference], { description: 'Secret whose key "token" verifies webhook deliveries.' }),
    }, { additionalProperties: false })),
    suspend: Type.Optional(Type.Boolean({ description: 'No fetches while true; what was applied stays.' })),
    decryption: Type.Optional(Type.Object({
      secretRef: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 253, description: "Name of a Secret in the Source's own namespace." }),
      }, { additionalProperties: false, description: 'Secret with this source\'s sops keys: age identities under keys ending .agekey, armored PGP private keys under keys ending .asc.' }),
    }, { additionalProperties: false, description: "This source's own sops keys; its encrypted files are never decrypted with another source's." })),
  }),
], { additionalProperties: false });
export type SourceObjectSpec = Static<typeof SourceObjectSpec>;
