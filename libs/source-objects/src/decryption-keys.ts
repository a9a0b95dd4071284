import { TerminalError } from '@tidemark/contracts';

/** DecryptionKeys are a Source's sops keys, as text (render's SopsKeys ageKeys and pgpKeys). */
export interface DecryptionKeys {
  readonly ageKeys?: string;
  readonly pgpKeys?: string;
}

/** decryptionKeyNames says which keys a decryption Secret holds, for messages (Flux's names). */
export const decryptionKeyNames = 'age identities under keys ending .agekey, or armored PGP private keys under keys ending .asc';

/**
 * decryptionKeysFromSecret reads a Source's decryption Secret (data in base64, as the API gives
 * it): every key ending .agekey is age identities, every key ending .asc an armored PGP private
 * key, as Flux's kustomize-controller reads them. Messages name the Secret and keys, never a value.
 */
export function decryptionKeysFromSecret(data: Readonly<Record<string, string>> | undefined, where: string): DecryptionKeys {
  const values = (suffix: string) => Object.entries(data ?? {})
    .filter(([key]) => key.endsWith(suffix))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, encoded]) => Buffer.from(encoded, 'base64').toString('utf8').trim())
    .filter((value) => value.length > 0);
  const age = values('.agekey');
  const pgp = values('.asc');
  if (age.length === 0 && pgp.length === 0) throw new TerminalError('SecretInvalid', `${where}: holds no sops key; it needs ${decryptionKeyNames}`);
  return { ...(age.length > 0 ? { ageKeys: `${age.join('\n')}\n` } : {}), ...(pgp.length > 0 ? { pgpKeys: `${pgp.join('\n')}\n` } : {}) };
}
