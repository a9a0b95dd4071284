import { Type } from '@sinclair/typebox';
import { namespacedKindCrd, withCelRules, type KubernetesManifest } from '@tidemark/contracts';
import { SourceObjectSpec, sourceGroup, sourceKind, sourcePlural, sourceVersion } from './source-kind';

const SourceObjectStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer()),
  conditions: Type.Optional(Type.Array(Type.Object({
    type: Type.String(),
    status: Type.String(),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    lastTransitionTime: Type.Optional(Type.String()),
    observedGeneration: Type.Optional(Type.Integer()),
  }))),
  ref: Type.Optional(Type.String({ description: 'What the source follows, e.g. "branch main".' })),
  lastFetchedRevision: Type.Optional(Type.String()),
  lastCommitMessage: Type.Optional(Type.String()),
  objects: Type.Optional(Type.Integer({ description: 'Kubernetes objects the source declares at its revision.' })),
  sourceErrors: Type.Optional(Type.Integer({ description: 'Files in Git that cannot be read at the revision.' })),
  lastError: Type.Optional(Type.String()),
});

// Checked at admission, so a bad Source never reaches the reconciler (which checks again with parseSourceSpec).
// SSH: ssh:// (git+ssh://) or git's scp-like user@host:path, whose path never starts with "//". OCI: oci://host/repository.
const urlRule = {
  rule: "self.url.startsWith('https://') || self.url.matches('^http://(localhost|127\\\\.[0-9]+\\\\.[0-9]+\\\\.[0-9]+|\\\\[::1\\\\])(:[0-9]+)?(/.*)?$')"
    + " || self.url.matches('^(ssh|git\\\\+ssh|ssh\\\\+git)://') || self.url.matches('^([A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+|\\\\[[0-9A-Fa-f:.]+\\\\]):([^/]|/[^/])')"
    + " || self.url.startsWith('oci://')",
  message: 'url must use https (plain http is allowed only for loopback hosts), ssh://, the scp-like user@host:path, or oci:// for an OCI artifact source',
};
// An SSH URL names its login (git@), never a password; any other user part is a credential.
const noCredentialsRule = {
  rule: "!self.url.matches('^[a-z+]+://[^/]*@') || self.url.matches('^(ssh|git\\\\+ssh|ssh\\\\+git)://[A-Za-z0-9._-]+@[^/@]*/')",
  message: 'url must not contain credentials; use secretRef',
};

/** sourceCrdHeader opens deploy/crds/sources.tidemark.dev.yaml. */
export const sourceCrdHeader = '# Generated from libs/source-objects by `npx tsx scripts/generate-crds.ts`; do not edit by hand.\n';

/** sourceCrd is the Source kind's CRD; its spec schema is generated from the TypeBox type the reconciler parses with. */
export function sourceCrd(): KubernetesManifest {
  // The name becomes part of the source's name (<namespace>.<name>) in jobs, keys and owner annotations.
  return namespacedKindCrd({
    group: sourceGroup, kind: sourceKind, plural: sourcePlural, singular: 'source', shortNames: ['tmsrc'], version: sourceVersion,
    columns: [
      { name: 'URL', type: 'string', jsonPath: '.spec.url' },
      { name: 'Ref', type: 'string', jsonPath: '.status.ref' },
      { name: 'Revision', type: 'string', jsonPath: '.status.lastFetchedRevision' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    spec: withCelRules(SourceObjectSpec, [urlRule, noCredentialsRule]), status: SourceObjectStatus,
  });
}
