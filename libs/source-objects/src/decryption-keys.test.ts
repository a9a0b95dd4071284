import { describe, expect, it } from 'vitest';
import { decryptionKeysFromSecret } from './decryption-keys';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('decryptionKeysFromSecret', () => {
  it('reads age identities from keys ending .agekey and PGP keys from keys ending .asc, as Flux does', () => {
    const keys = decryptionKeysFromSecret({ 'identity.agekey': b64('AGE-SECRET-KEY-1ONE\n'), 'b.agekey': b64('AGE-SECRET-KEY-1TWO'), 'team.asc': b64('-----BEGIN PGP PRIVATE KEY BLOCK-----'), other: b64('x') }, 'Secret a/keys');
    expect(keys).toEqual({ ageKeys: 'AGE-SECRET-KEY-1TWO\nAGE-SECRET-KEY-1ONE\n', pgpKeys: '-----BEGIN PGP PRIVATE KEY BLOCK-----\n' });
  });

  it('refuses a Secret with no key, naming it and the keys it needs, never a value', () => {
    expect(() => decryptionKeysFromSecret({ password: b64('hunter2') }, 'Secret a/keys (spec.decryption.secretRef of Source a/apps)'))
      .toThrow('Secret a/keys (spec.decryption.secretRef of Source a/apps): holds no sops key; it needs age identities under keys ending .agekey, or armored PGP private keys under keys ending .asc');
  });
});
