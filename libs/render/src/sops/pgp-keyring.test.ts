import { describe, expect, it } from 'vitest';
import { dearmor } from './pgp-keyring';

const packets = Buffer.from(Array.from({ length: 200 }, (_, index) => (index * 37) % 256));
const armored = (body: Buffer, headers = 'Comment: made by a test\n') => [
  '-----BEGIN PGP PRIVATE KEY BLOCK-----', `${headers}`, ...(body.toString('base64').match(/.{1,64}/g) ?? []), '=abCD', '-----END PGP PRIVATE KEY BLOCK-----', '',
].join('\n');

describe('dearmor', () => {
  it('returns the packets of an armored key, headers and checksum left out', () => {
    expect(dearmor(Buffer.from(armored(packets)))).toEqual(packets);
    expect(dearmor(Buffer.from(armored(packets, '')))).toEqual(packets);
  });

  it('joins several armored blocks, as `gpg --export-secret-keys --armor` of two keys writes them', () => {
    const other = Buffer.from('another key');
    expect(dearmor(Buffer.from(armored(packets) + armored(other)))).toEqual(Buffer.concat([packets, other]));
  });

  it('keeps a binary key file as it is, and refuses a block without its END line', () => {
    expect(dearmor(packets)).toBe(packets);
    expect(() => dearmor(Buffer.from('-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nAAAA\n'))).toThrow('armored block without its END line');
  });
});
