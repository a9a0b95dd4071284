// Signatures here are made by the real `ssh-keygen -Y sign` (OpenSSH), as git's gpg.format=ssh runs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sshKeyFingerprint, sshKeyProblem, verifySshSignature } from './ssh-signature';

const exec = promisify(execFile);
const message = Buffer.from('tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@example.com> 1 +0000\n\nsigned\n');
const keyKinds = {
  ed25519: ['-t', 'ed25519'],
  rsa: ['-t', 'rsa', '-b', '2048'],
  ecdsa256: ['-t', 'ecdsa', '-b', '256'],
  ecdsa384: ['-t', 'ecdsa', '-b', '384'],
  ecdsa521: ['-t', 'ecdsa', '-b', '521'],
} as const;
type KeyKind = keyof typeof keyKinds;

let dir: string;
const publicKeys = {} as Record<KeyKind | 'other', string>;

/** sign signs `bytes` with a key by ssh-keygen -Y sign and returns the armored signature. */
async function sign(kind: KeyKind | 'other', bytes: Buffer, options: string[] = [], namespace = 'git'): Promise<string> {
  const file = join(dir, `message-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, bytes);
  await exec('ssh-keygen', ['-Y', 'sign', '-f', join(dir, kind), '-n', namespace, ...options, file]);
  return readFile(`${file}.sig`, 'utf8');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidemark-sshsig-'));
  const kinds = [...Object.entries(keyKinds), ['other', ['-t', 'ed25519']]] as Array<[KeyKind | 'other', readonly string[]]>;
  await Promise.all(kinds.map(async ([kind, args]) => {
    await exec('ssh-keygen', ['-q', ...args, '-N', '', '-C', `${kind}@example.com`, '-f', join(dir, kind)]);
    publicKeys[kind] = (await readFile(join(dir, `${kind}.pub`), 'utf8')).trim();
  }));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('verifySshSignature', () => {
  it.each(Object.keys(keyKinds) as KeyKind[])('accepts a %s signature by an allowed key and names its fingerprint as ssh-keygen -l does', async (kind) => {
    const armored = await sign(kind, message);
    const fingerprint = (await exec('ssh-keygen', ['-lf', join(dir, `${kind}.pub`)])).stdout.split(' ')[1];
    expect(verifySshSignature(armored, message, [publicKeys.other, publicKeys[kind]])).toEqual({ verified: true, fingerprint });
    expect(sshKeyFingerprint(publicKeys[kind])).toBe(fingerprint);
    expect(sshKeyProblem(publicKeys[kind])).toBeUndefined();
  });

  it('accepts a sha256 hash as well as the default sha512', async () => {
    const armored = await sign('rsa', message, ['-O', 'hashalg=sha256']);
    expect(verifySshSignature(armored, message, [publicKeys.rsa])).toMatchObject({ verified: true });
  });

  it('refuses a signature by a key not allowed, naming that key', async () => {
    const armored = await sign('other', message);
    expect(verifySshSignature(armored, message, [publicKeys.ed25519])).toEqual({
      verified: false, reason: `is signed, but by SSH key ${sshKeyFingerprint(publicKeys.other)}, which is not one of the expected keys`,
    });
  });

  it('refuses a signature over other content, and one made for another namespace', async () => {
    const armored = await sign('ed25519', message);
    const changed = Buffer.from(message.toString().replace('signed', 'forged'));
    expect(verifySshSignature(armored, changed, [publicKeys.ed25519])).toMatchObject({ verified: false, reason: expect.stringMatching(/does not match its content/) });
    const file = await sign('ed25519', message, [], 'file');
    expect(verifySshSignature(file, message, [publicKeys.ed25519])).toEqual({ verified: false, reason: 'carries an SSH signature for namespace "file", not "git"' });
  });

  it('refuses a signature made by another key that claims an allowed key as its signer', async () => {
    const forged = await sign('other', message);
    const blob = Buffer.from(forged.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const theirs = Buffer.from(publicKeys.other.split(' ')[1]!, 'base64');
    const ours = Buffer.from(publicKeys.ed25519.split(' ')[1]!, 'base64');
    // Both are ed25519 keys of the same length: swap the key field of the SSHSIG in place.
    const swapped = Buffer.from(blob);
    ours.copy(swapped, blob.indexOf(theirs));
    const armored = `-----BEGIN SSH SIGNATURE-----\n${swapped.toString('base64')}\n-----END SSH SIGNATURE-----\n`;
    expect(verifySshSignature(armored, message, [publicKeys.ed25519])).toMatchObject({ verified: false, reason: expect.stringMatching(/^carries an SSH signature by SHA256:.* that does not match its content$/) });
  });

  it('matches an allowed key however its line is spaced or commented', async () => {
    const armored = await sign('ecdsa256', message);
    const [type, key] = publicKeys.ecdsa256.split(' ');
    expect(verifySshSignature(armored, message, [`  ${type}   ${key}  `])).toMatchObject({ verified: true });
    expect(verifySshSignature(armored, message, [`${type} ${key} another comment entirely`])).toMatchObject({ verified: true });
  });

  it('refuses unreadable, truncated, padded and oversized armor without throwing', async () => {
    const armored = await sign('ed25519', message);
    const body = armored.split('\n').slice(1, -2).join('');
    const wrap = (base64: string) => `-----BEGIN SSH SIGNATURE-----\n${base64}\n-----END SSH SIGNATURE-----\n`;
    const cases = [
      'not a signature',
      wrap('!!!'),
      wrap(Buffer.from(body, 'base64').subarray(0, 60).toString('base64')),
      wrap(Buffer.concat([Buffer.from(body, 'base64'), Buffer.from('extra')]).toString('base64')),
      wrap('A'.repeat(20_000)),
    ];
    for (const text of cases) {
      expect(verifySshSignature(text, message, [publicKeys.ed25519])).toMatchObject({ verified: false, reason: expect.stringMatching(/^carries an SSH signature that cannot be read/) });
    }
  });

  it('says why a key line cannot be used', () => {
    expect(sshKeyProblem('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 team')).toMatch(/cannot be read/);
    expect(sshKeyProblem(publicKeys.ed25519.replace('ssh-ed25519', 'ssh-rsa'))).toMatch(/not base64 of a key of the named type/);
  });
});
