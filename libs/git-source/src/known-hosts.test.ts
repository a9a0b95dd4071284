import { createHmac, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blobType, fingerprintOf, hostKeyAlgorithms, pinnedKeys } from './known-hosts';

/** ed25519Line is a host key as known_hosts holds it: type and base64 wire blob. */
function ed25519Blob(): Buffer {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const type = Buffer.from('ssh-ed25519');
  const length = (buffer: Buffer) => Buffer.from([0, 0, 0, buffer.length]);
  return Buffer.concat([length(type), type, length(raw), raw]);
}

const first = ed25519Blob();
const second = ed25519Blob();
const line = (hosts: string, blob: Buffer) => `${hosts} ssh-ed25519 ${blob.toString('base64')}`;

describe('pinnedKeys', () => {
  it('finds the keys of a host by name, by [host]:port, by wildcard, and not through a negation', () => {
    const knownHosts = [
      '# comment',
      line('github.com,140.82.121.4', first),
      line('[127.0.0.1]:2222', second),
      line('*.example.com,!evil.example.com', second),
      'garbage line',
    ].join('\n');
    expect(pinnedKeys(knownHosts, 'github.com').accepted.map((key) => key.blob)).toEqual([first]);
    expect(pinnedKeys(knownHosts, '[127.0.0.1]:2222').accepted.map((key) => key.blob)).toEqual([second]);
    expect(pinnedKeys(knownHosts, '127.0.0.1').accepted).toEqual([]);
    expect(pinnedKeys(knownHosts, 'git.example.com').accepted).toHaveLength(1);
    expect(pinnedKeys(knownHosts, 'evil.example.com').accepted).toEqual([]);
  });

  it('reads hashed host names, @revoked lines, and skips @cert-authority and mismatched types', () => {
    const salt = Buffer.from('0123456789abcdefghij');
    const hash = createHmac('sha1', salt).update('[10.0.0.1]:22').digest('base64');
    const knownHosts = [
      line(`|1|${salt.toString('base64')}|${hash}`, first),
      `@revoked ${line('*', second)}`,
      `@cert-authority ${line('*', first)}`,
      `[10.0.0.1]:22 ssh-rsa ${first.toString('base64')}`,
    ].join('\n');
    const pinned = pinnedKeys(knownHosts, '[10.0.0.1]:22');
    expect(pinned.accepted.map((key) => key.blob)).toEqual([first]);
    expect(pinned.revoked.map((key) => key.blob)).toEqual([second]);
  });
});

describe('key helpers', () => {
  it('prints fingerprints as ssh-keygen does and lists the algorithms of pinned keys', () => {
    expect(fingerprintOf(first)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(blobType(first)).toBe('ssh-ed25519');
    expect(blobType(Buffer.from([0, 0, 1]))).toBeUndefined();
    expect(hostKeyAlgorithms([{ type: 'ssh-rsa', blob: first }, { type: 'ssh-ed25519', blob: first }])).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519']);
  });
});
