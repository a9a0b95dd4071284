import * as fs from 'node:fs';
import git from 'isomorphic-git';
import type * as OpenPGP from 'openpgp';
import { TerminalError, messageOf } from '@tidemark/contracts';
import type { SourceVerify } from './source-spec';

/**
 * verifyCommit checks that a commit carries an OpenPGP signature (`gpgsig`, as `git commit -S`
 * writes it) over its exact bytes, made by one of the source's keys. It returns the fingerprint
 * of the key that signed; an unsigned commit, a signature by another key or one that does not
 * match the commit throws CommitNotVerified, naming the commit and the keys expected.
 */
export async function verifyCommit(gitdir: string, revision: string, keys: SourceVerify, source: string): Promise<string> {
  const { createMessage, readSignature, verify } = await loadOpenpgp();
  const { commit, payload } = await git.readCommit({ fs, gitdir, oid: revision });
  const expected = await expectedKeys(keys, source);
  const refuse = (why: string) => new TerminalError('CommitNotVerified',
    `Commit ${revision.slice(0, 12)} of source ${source} ${why}; it is not applied, and the last verified revision stays. Expected a signature by ${expected.map((key) => key.getFingerprint().toUpperCase()).join(', ')}.`);
  if (!commit.gpgsig) throw refuse('is not signed');
  if (!commit.gpgsig.includes('-----BEGIN PGP SIGNATURE-----')) throw refuse('is not signed with OpenPGP (an SSH or X.509 signature)');
  const signature = await readSignature({ armoredSignature: commit.gpgsig }).catch(() => undefined);
  if (!signature) throw refuse('carries a signature that cannot be read');
  const message = await createMessage({ binary: Buffer.from(payload, 'utf8') });
  const { signatures } = await verify({ message, signature, verificationKeys: expected, format: 'binary' });
  for (const { verified, keyID } of signatures) {
    const valid = await verified.then(() => true, () => false);
    if (valid) return keyID.toHex().toUpperCase();
  }
  throw refuse('is signed, but not by one of the expected keys (or the signature does not match the commit)');
}

/** loadOpenpgp loads OpenPGP.js when a source asks for signatures: most deployments never do, and it holds 4 MiB of heap. */
function loadOpenpgp(): Promise<typeof OpenPGP> {
  return import('openpgp');
}

async function expectedKeys(keys: SourceVerify, source: string): Promise<OpenPGP.Key[]> {
  const { readKey } = await loadOpenpgp();
  if (keys.openpgpKeys.length === 0) {
    throw new TerminalError('CommitNotVerified', `Source ${source} names only SSH keys in verify.sshKeys; this release verifies OpenPGP signatures only, so nothing is applied. Add the signers' OpenPGP keys to verify.openpgpKeys.`);
  }
  return Promise.all(keys.openpgpKeys.map((armoredKey, index) => readKey({ armoredKey }).catch((error: unknown) => {
    throw new TerminalError('CommitNotVerified', `Source ${source} verify.openpgpKeys[${index}] is not a readable OpenPGP public key: ${messageOf(error)}`);
  })));
}
