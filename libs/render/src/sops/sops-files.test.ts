import { describe, expect, it } from 'vitest';
import { scrubSecrets } from './decrypt-sops';
import { sopsFormatOf } from './sops-files';

describe('sops files', () => {
  it('spots sops-encrypted YAML, JSON and dotenv files, and nothing else', () => {
    expect(sopsFormatOf('s.enc.yaml', 'stringData:\n  a: ENC[AES256_GCM,data:x]\nsops:\n  age: []\n  mac: ENC[AES256_GCM,data:y]\n')).toBe('yaml');
    expect(sopsFormatOf('s.json', '{"a":"ENC[x]","sops":{"mac":"ENC[y]"}}')).toBe('json');
    expect(sopsFormatOf('s.env', 'A=ENC[x]\nsops_mac=ENC[y]\n')).toBe('dotenv');
    expect(sopsFormatOf('plain.yaml', 'kind: ConfigMap\nmetadata: {name: sops}\n')).toBeUndefined();
    expect(sopsFormatOf('README.md', 'sops:\n  mac: x\n')).toBeUndefined();
  });

  it('scrubs decrypted values, raw and base64, from messages', () => {
    const message = `bad value hunter2-x and ${Buffer.from('hunter2-x').toString('base64')}`;
    expect(scrubSecrets(message, ['hunter2-x'])).toBe('bad value [redacted] and [redacted]');
  });
});
