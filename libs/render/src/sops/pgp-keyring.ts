import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RenderFailure } from '../render-failure';

const armorBegin = /^-----BEGIN PGP PRIVATE KEY BLOCK-----$/m;

/**
 * writePgpHome makes a GnuPG home for one sops run: a 0700 folder holding `secring.gpg`, the
 * configured private keys as a binary keyring. sops reads that file itself (OpenPGP, in Go), so
 * no gpg binary or agent runs at render time; the folder lies in the unit's scratch tree and goes
 * with it. The keys (a file, or a Secret's text) may be ASCII-armored (`gpg --export-secret-keys --armor`) or binary.
 */
export async function writePgpHome(keys: { file: string } | { armored: string }, scratch: string): Promise<string> {
  let key: Buffer;
  if ('armored' in keys) {
    key = Buffer.from(keys.armored, 'latin1');
  } else {
    try {
      key = await readFile(keys.file);
    } catch (error) {
      throw new RenderFailure('DecryptFailed', `the sops PGP key file ${keys.file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  const home = join(scratch, 'gnupg');
  await mkdir(home, { recursive: true, mode: 0o700 });
  await chmod(home, 0o700);
  await writeFile(join(home, 'secring.gpg'), dearmor(key), { mode: 0o600 });
  return home;
}

/** dearmor turns ASCII-armored private key blocks into the binary packets they hold; binary input is kept. */
export function dearmor(key: Buffer): Buffer {
  const text = key.toString('latin1');
  if (!armorBegin.test(text)) return key;
  const blocks = text.split(armorBegin).slice(1);
  return Buffer.concat(blocks.map((block) => {
    const end = block.search(/^-----END PGP PRIVATE KEY BLOCK-----/m);
    if (end < 0) throw new RenderFailure('DecryptFailed', 'the sops PGP key file has an armored block without its END line');
    // Armor headers ("Comment: …") hold a colon, base64 never does; the last line may be the "=XXXX" checksum.
    const lines = block.slice(0, end).split(/\r?\n/).map((line) => line.trim()).filter((line) => line && !line.includes(':'));
    if (/^=[A-Za-z0-9+/]{4}$/.test(lines.at(-1) ?? '')) lines.pop();
    return Buffer.from(lines.join(''), 'base64');
  }));
}
