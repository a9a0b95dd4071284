import * as fs from 'node:fs';
import git from 'isomorphic-git';
import type * as OpenPGP from 'openpgp';
import { TerminalError, messageOf } from '@tidemark/contracts';
import { splitSignedCommit, splitSignedTag, type SignedPayload } from './signed-object';
import type { SourceVerify } from './source-spec';
import { sshKeyFingerprint, verifySshSignature } from './ssh-signature';

/**
 * verifyCommit checks that a commit carries a signature (`gpgsig`, as `git commit -S` writes it,
 * OpenPGP or SSH) over its exact bytes, made by one of the source's keys of that format. It
 * returns the fingerprint of the key that signed; an unsigned commit, a signature by another key
 * or one that does not match the commit throws CommitNotVerified, naming the commit and the keys expected.
 */
export async function verifyCommit(gitdir: string, revision: string, keys: SourceVerify, source: string): Promise<string> {
  const bytes = await readRaw(gitdir, revision, 'commit');
  return verifySigned(splitSignedCommit(bytes), keys, `Commit ${revision.slice(0, 12)} of source ${source}`);
}

/**
 * verifyTag checks that the annotated tag a tag or semver source follows is signed (`git tag -s`,
 * OpenPGP or SSH) by one of the source's keys, as verifyCommit does for a commit. A lightweight
 * tag has nothing to sign and is refused.
 */
export async function verifyTag(gitdir: string, tag: { ref: string; oid: string; commit: string }, keys: SourceVerify, source: string): Promise<string> {
  const name = tag.ref.replace(/^refs\/tags\//, '');
  const what = `Tag ${name} (${tag.oid.slice(0, 12)}) of source ${source}`;
  if (tag.oid === tag.commit) throw await refusal(keys, what, 'is a lightweight tag; verify.mode tag needs an annotated, signed tag (git tag -s)');
  return verifySigned(splitSignedTag(await readRaw(gitdir, tag.oid, 'tag')), keys, what);
}

async function verifySigned({ payload, signature }: SignedPayload, keys: SourceVerify, what: string): Promise<string> {
  const refuse = async (why: string) => refusal(keys, what, why);
  if (!signature) throw await refuse('is not signed');
  if (signature.startsWith('-----BEGIN SSH SIGNATURE-----')) {
    if (keys.sshKeys.length === 0) throw await refuse('is signed with an SSH key, and the source names no SSH keys in verify.sshKeys');
    const check = verifySshSignature(signature, payload, keys.sshKeys);
    if (check.verified) return check.fingerprint;
    throw await refuse(check.reason);
  }
  if (!signature.startsWith('-----BEGIN PGP SIGNATURE-----')) throw await refuse('is signed in a format that is not verified (X.509); OpenPGP and SSH signatures are');
  if (keys.openpgpKeys.length === 0) throw await refuse('is signed with OpenPGP, and the source names no OpenPGP keys in verify.openpgpKeys');
  const { createMessage, readSignature, verify } = await loadOpenpgp();
  const parsed = await readSignature({ armoredSignature: signature }).catch(() => undefined);
  if (!parsed) throw await refuse('carries a signature that cannot be read');
  const message = await createMessage({ binary: payload });
  const { signatures } = await verify({ message, signature: parsed, verificationKeys: await openpgpKeysOf(keys, what), format: 'binary' });
  for (const { verified, keyID } of signatures) {
    const valid = await verified.then(() => true, () => false);
    if (valid) return keyID.toHex().toUpperCase();
  }
  throw await refuse('is signed, but not by one of the expected keys (or the signature does not match the commit)');
}

async function refusal(keys: SourceVerify, what: string, why: string): Promise<TerminalError> {
  const openpgp = keys.openpgpKeys.length > 0 ? (await openpgpKeysOf(keys, what)).map((key) => key.getFingerprint().toUpperCase()) : [];
  const expected = [...openpgp, ...keys.sshKeys.map(sshKeyFingerprint)];
  return new TerminalError('CommitNotVerified', `${what} ${why}; it is not applied, and the last verified revision stays. Expected a signature by ${expected.join(', ')}.`);
}

/** readRaw reads an object's exact bytes: what was signed is checked byte for byte. */
async function readRaw(gitdir: string, oid: string, type: 'commit' | 'tag'): Promise<Buffer> {
  const { type: found, object } = await git.readObject({ fs, gitdir, oid, format: 'content' });
  if (found !== type) throw new TerminalError('CommitNotVerified', `${oid.slice(0, 12)} is a ${found}, not a ${type}`);
  return Buffer.from(object as Uint8Array);
}

/** loadOpenpgp loads OpenPGP.js when a source asks for OpenPGP signatures: most deployments never do, and it holds 4 MiB of heap. */
function loadOpenpgp(): Promise<typeof OpenPGP> {
  return import('openpgp');
}

async function openpgpKeysOf(keys: SourceVerify, what: string): Promise<OpenPGP.Key[]> {
  const { readKey } = await loadOpenpgp();
  return Promise.all(keys.openpgpKeys.map((armoredKey, index) => readKey({ armoredKey }).catch((error: unknown) => {
    throw new TerminalError('CommitNotVerified', `${what}: verify.openpgpKeys[${index}] is not a readable OpenPGP public key: ${messageOf(error)}`);
  })));
}
