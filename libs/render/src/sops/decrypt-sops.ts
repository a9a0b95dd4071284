import { writeFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { RenderFailure } from '../render-failure';
import { runSandboxed, type SandboxLimits } from '../sandbox';
import type { SandboxLauncher } from '../sandbox-launcher';
import type { SopsFile } from './sops-files';
import { writePgpHome } from './pgp-keyring';

/** SopsKeys are the decryption keys Tidemark holds; sops gets only these, never a cloud KMS. */
export interface SopsKeys {
  /** A file of age identities (AGE-SECRET-KEY-…), one per line. */
  ageKeyFile?: string;
  /** A file of PGP private keys (`gpg --export-secret-keys --armor`, without a passphrase). */
  pgpKeyFile?: string;
}

export interface DecryptContext {
  sops: string;
  keys: SopsKeys;
  scratch: string;
  limits: SandboxLimits;
  launcher?: SandboxLauncher;
}

/**
 * decryptInPlace decrypts sops files of a unit's input tree where they lie, before the renderer
 * reads them, and returns the decrypted values so that every message can be scrubbed of them.
 * A file that fails to decrypt fails its unit only, with a message that names the file.
 */
export async function decryptInPlace(files: readonly SopsFile[], context: DecryptContext): Promise<string[]> {
  const secrets: string[] = [];
  const { ageKeyFile, pgpKeyFile } = context.keys;
  const [first] = files;
  if (first && !ageKeyFile && !pgpKeyFile) {
    throw new RenderFailure('DecryptFailed', `${first.path} is encrypted with sops, and no sops key is configured (render.sops.ageKeyFile or render.sops.pgpKeyFile)`, first.path);
  }
  const env = await keyEnvironment(context);
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
      throw new RenderFailure('DecryptFailed', `${file.path} could not be decrypted with the configured keys: ${firstSentence(error.message)}`, file.path);
    }
    secrets.push(...decryptedValues(file, plain));
    await writeFile(file.absolute, plain, { mode: 0o600 });
  }
  return secrets;
}

/**
 * keyEnvironment is what sops is told about keys: the age identities file, and a GnuPG home of
 * its own holding the PGP keys. SOPS_GPG_EXEC points nowhere, so sops never falls back to a gpg
 * binary or agent (and so to keys of the machine); nothing else reaches it (no cloud KMS).
 */
async function keyEnvironment(context: DecryptContext): Promise<Record<string, string>> {
  const { ageKeyFile, pgpKeyFile } = context.keys;
  return {
    ...(ageKeyFile ? { SOPS_AGE_KEY_FILE: ageKeyFile } : {}),
    GNUPGHOME: pgpKeyFile ? await writePgpHome(pgpKeyFile, context.scratch) : `${context.scratch}/no-gnupg`,
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
