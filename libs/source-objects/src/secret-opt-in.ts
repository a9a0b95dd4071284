import { TerminalError } from '@tidemark/contracts';
import type { SecretName } from './parse-source-object';
import { secretNotAllowedPrefix } from './source-object-status';

/** With the Source's name as value, a Secret lets that Source (in its own namespace) send its credentials. */
export const secretSourceLabel = 'tidemark.dev/source';
/** A comma-separated list of the Sources that may use a Secret: `name` (its own namespace) or `namespace/name`. */
export const secretSourcesAnnotation = 'tidemark.dev/sources';
/** A Secret of this type was made for Tidemark: any Source that may reference it may use it. */
export const gitCredentialsSecretType = 'tidemark.dev/git-credentials';

/** SecretOptIn is what of a Secret says whom it is for. */
export interface SecretOptIn {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly type: string;
}

/**
 * checkSecretOptIn refuses a Secret that has not opted in for the Source that names it. Whoever may
 * create a Source could otherwise send any credential-shaped Secret of its namespace (the CI's, a
 * registry's) to a URL of their choice, with Tidemark's right to read it: a confused deputy. The
 * message names the Secret, the Source and what to add; never a value.
 */
export function checkSecretOptIn(secret: SecretName, optIn: SecretOptIn, source: { namespace: string; name: string }, usedBy: string): void {
  if (optIn.type === gitCredentialsSecretType) return;
  const own = secret.namespace === source.namespace;
  if (own && optIn.labels[secretSourceLabel] === source.name) return;
  const listed = (optIn.annotations[secretSourcesAnnotation] ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  if (listed.includes(`${source.namespace}/${source.name}`) || (own && listed.includes(source.name))) return;
  const label = own ? `the label ${secretSourceLabel}: "${source.name}", or ` : '';
  throw new TerminalError('SecretNotAllowed', `${secretNotAllowedPrefix} ${secret.namespace}/${secret.name} (${usedBy}) has not opted in for Source ${source.namespace}/${source.name}, so its credentials are not sent. Add to the Secret ${label}the annotation ${secretSourcesAnnotation}: "${source.namespace}/${source.name}" (a comma-separated list), or make it of type ${gitCredentialsSecretType}. Nothing is fetched, and nothing pruned, until then.`);
}
