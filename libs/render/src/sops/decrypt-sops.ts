import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { RenderFailure } from '../render-failure';
import { runSandboxed, type SandboxLimits } from '../sandbox';
import type { SandboxLauncher } from '../sandbox-launcher';
import type { SopsFile } from './sops-files';
import { writePgpHome } from './pgp-keyring';
import { messageOf } from '@tidemark/contracts';

/** SopsKeys are the decryption keys of one source; sops gets only these, never a cloud KMS. */
export interface SopsKeys {
  /** A file of age identities (AGE-SECRET-KEY-…), one per line. */
  ageKeyFile?: string;
  /** A file of PGP private keys (`gpg --export-secret-keys --armor`, without a passphrase). */
  pgpKeyFile?: string;
  /** Age identities themselves (a Secret's `*.agekey` values); written to the unit's scratch folder for sops. */
  ageKeys?: string;
  /** Armored PGP private keys themselves (a Secret's `*.asc` values). */
  pgpKeys?: string;
}

/**
 * SopsKeyring is one source's decryption keys, read at each render (a rotated Secret is used at
 * once). A unit is decrypted with its own source's keyring and never with another's.
 */
export interface SopsKeyring {
  /** The source whose keys these are; it also keys the render cache, so no source reads another's output. */
  readonly owner: string;
  /** The keys, or undefined when the source has none (its encrypted files then fail to decrypt). */
  keys(): Promise<SopsKeys | undefined>;
  /** A sentence saying how this source gets a key, for the error of a file it cannot decrypt. */
  readonly howToGiveKeys: string;
}

export interface DecryptContext {
  sops: string;
  keyring: SopsKeyring | undefined;
  scratch: string;
  limits: SandboxLimits;
  launcher?: SandboxLauncher;
}

/**
 * decryptInPlace decrypts sops files of a unit's input tree where they lie, before the renderer
 * reads them, with the keys of the unit's own source only, and returns the decrypted values so
 * that every message can be scrubbed of them. A file that fails to decrypt fails its unit only,
 * with a message that names the file.
 */
export async function decryptInPlace(files: readonly SopsFile[], context: DecryptContext): Promise<string[]> {
  const secrets: string[] = [];
  const [first] = files;
  if (!first) return secrets;
  const keys = await context.keyring?.keys().catch((error: unknown) => {
    throw new RenderFailure('DecryptFailed', `${first.path} is encrypted with sops, and the keys of source ${context.keyring?.owner ?? ''} cannot be read: ${messageOf(error)}`, first.path);
  });
  if (!keys || !(keys.ageKeyFile || keys.pgpKeyFile || keys.ageKeys || keys.pgpKeys)) {
    const owner = context.keyring ? `source ${context.keyring.owner}` : 'its source';
    throw new RenderFailure('DecryptFailed', `${first.path} is encrypted with sops, and ${owner} has no sops key of its own, so it is not decrypted (never with another source's key). ${context.keyring?.howToGiveKeys ?? ''}`.trim(), first.path);
  }
  const env = await keyEnvironment(keys, context.scratch);
  for (const file of files) {
    let plain: string;
    try {
      ({ stdout: plain } = await runSandboxed({
        command: context.sops,
        args: ['--decrypt', '--input-type', file.format, '--output-type', file.format, file.absolute],
        cwd: context.scratch,
        home: context.scratch,
        limits: context.limits,
        label: `sops --decrypt ${file.path}`,
        env,
        launcher: context.launcher,
      }));
    } catch (error) {
      if (!(error instanceof RenderFailure)) throw error;
      const owner = context.keyring ? ` of source ${context.keyring.owner}` : '';
      throw new RenderFailure('DecryptFailed', `${file.path} could not be decrypted with the keys${owner}: ${firstSentence(error.message)}`, file.path);
    }
    secrets.push(...decryptedValues(file, plain));
    await writeFile(file.absolute, plain, { mode: 0o600 });
  }
  return secrets;
}

/**
 * keyEnvironment is what sops is told about keys: the age identities file, and a GnuPG home of
 * its own holding the PGP keys. Keys given as text are written into the scratch folder, which
 * goes with the unit's tree. SOPS_GPG_EXEC points nowhere, so sops never falls back to a gpg
 * binary or agent (and so to keys of the machine); nothing else reaches it (no cloud KMS).
 */
async function keyEnvironment(keys: SopsKeys, scratch: string): Promise<Record<string, string>> {
  let ageKeyFile = keys.ageKeyFile;
  if (keys.ageKeys) {
    ageKeyFile = join(scratch, 'age-identities.txt');
    await writeFile(ageKeyFile, keys.ageKeys, { mode: 0o600 });
  }
  const pgp = keys.pgpKeys ? { armored: keys.pgpKeys } : keys.pgpKeyFile ? { file: keys.pgpKeyFile } : undefined;
  return {
    ...(ageKeyFile ? { SOPS_AGE_KEY_FILE: ageKeyFile } : {}),
    GNUPGHOME: pgp ? await writePgpHome(pgp, scratch) : `${scratch}/no-gnupg`,
    SOPS_GPG_EXEC: '/nonexistent/gpg',
  };
}

/** decryptedValues returns the plain values of the fields sops had encrypted (ENC[…] before). */
function decryptedValues(file: SopsFile, plain: string): string[] {
  if (file.format === 'dotenv') {
    return plain.split('\n').map((line) => line.slice(line.indexOf('=') + 1)).filter((value) => value.length > 0);
  }
  const values: string[] = [];
  collect(parse(file.text), parse(plain), values);
  return values;
}

function collect(encrypted: unknown, plain: unknown, into: string[]): void {
  if (typeof encrypted === 'string' && encrypted.startsWith('ENC[')) {
    if (plain !== undefined && plain !== null) into.push(String(plain));
    return;
  }
  if (Array.isArray(encrypted) && Array.isArray(plain)) {
    encrypted.forEach((item, index) => collect(item, plain[index], into));
  } else if (isRecord(encrypted) && isRecord(plain)) {
    for (const [key, value] of Object.entries(encrypted)) if (key !== 'sops') collect(value, plain[key], into);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstSentence(message: string): string {
  return message.replace(/^sops --decrypt \S+ failed: /, '').slice(0, 300);
}

/** scrubSecrets removes decrypted values (as written, and base64-encoded) from a message. */
export function scrubSecrets(message: string, secrets: readonly string[]): string {
  let scrubbed = message;
  for (const secret of secrets) {
    if (secret.length < 3) continue;
    scrubbed = scrubbed.split(secret).join('[redacted]').split(Buffer.from(secret).toString('base64')).join('[redacted]');
  }
  return scrubbed;
}
