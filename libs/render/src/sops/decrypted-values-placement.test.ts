import { describe, expect, it } from 'vitest';
import { refuseDecryptedOutsideSecrets } from './decrypted-values-placement';

const value = 'team-b-password-9f3k';
const secret = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: ${value}\ndata:\n  copy: ${Buffer.from(value).toString('base64')}\n`;

describe('refuseDecryptedOutsideSecrets', () => {
  it('lets decrypted values into a Secret\'s data and stringData', () => {
    expect(() => refuseDecryptedOutsideSecrets(secret, [value], 'apps/db')).not.toThrow();
  });

  it('refuses a ConfigMap holding a decrypted value, naming the object and field and never the value', () => {
    const configMap = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\n  namespace: team-a\ndata:\n  secret.enc.yaml: |\n    stringData:\n      password: ${value}\n`;
    let message = '';
    try {
      refuseDecryptedOutsideSecrets(`${secret}---\n${configMap}`, [value], 'apps/leak');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("apps/leak: ConfigMap team-a/leak holds a value decrypted from a sops file in data.secret.enc.yaml; decrypted values may go only into a Secret's data or stringData, so nothing of this unit is applied");
    expect(message).not.toContain(value);
  });

  it('refuses a value in base64 (binaryData), in a key, or in a Secret\'s own name or annotations', () => {
    const base64 = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\nbinaryData:\n  x: ${Buffer.from(value).toString('base64')}\n`;
    expect(() => refuseDecryptedOutsideSecrets(base64, [value], 'u')).toThrow('ConfigMap b holds a value decrypted from a sops file in binaryData.x');
    const key = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: k}\ndata:\n  ${value}: "1"\n`;
    expect(() => refuseDecryptedOutsideSecrets(key, [value], 'u')).toThrow('ConfigMap k holds a value decrypted from a sops file in data (a key)');
    const named = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  annotations: {note: "x-${value}"}\nstringData: {a: b}\n`;
    expect(() => refuseDecryptedOutsideSecrets(named, [value], 'u')).toThrow('Secret s holds a value decrypted from a sops file in metadata.annotations.note');
    // A Secret's data keys are shown wherever the Secret is (status, previews): no value there either.
    const keyed = `apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  ${value}: x\n`;
    expect(() => refuseDecryptedOutsideSecrets(keyed, [value], 'u')).toThrow('Secret s holds a value decrypted from a sops file in stringData (a key)');
  });

  it('does not look for values too short to mean anything', () => {
    expect(() => refuseDecryptedOutsideSecrets('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "no"}\n', ['no'], 'u')).not.toThrow();
  });
});
