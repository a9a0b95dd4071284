import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** SopsFormat is how sops reads and writes a file (its --input-type and --output-type). */
export type SopsFormat = 'yaml' | 'json' | 'dotenv';

/** SopsFile is one file that sops encrypted, found in a unit's input tree. */
export interface SopsFile {
  /** Absolute path in the materialised tree. */
  absolute: string;
  /** Repository path, for messages. */
  path: string;
  format: SopsFormat;
  text: string;
}

const yamlMarker = /^sops:\s*$/m;
const yamlMac = /^\s+mac:\s*\S/m;
const jsonMarker = /"sops"\s*:\s*\{[\s\S]*"mac"\s*:/;
const dotenvMarker = /^sops_mac=/m;

/** sopsFormatOf tells whether a file's text is sops-encrypted, and in which format. */
export function sopsFormatOf(name: string, text: string): SopsFormat | undefined {
  if (/\.ya?ml$/i.test(name)) return yamlMarker.test(text) && yamlMac.test(text) ? 'yaml' : undefined;
  if (/\.json$/i.test(name)) return jsonMarker.test(text) ? 'json' : undefined;
  if (/\.env$/i.test(name)) return dotenvMarker.test(text) ? 'dotenv' : undefined;
  return undefined;
}

/** findSopsFiles lists the sops-encrypted files under the given folders of a materialised tree. */
export async function findSopsFiles(root: string, folders: readonly string[]): Promise<SopsFile[]> {
  const found: SopsFile[] = [];
  for (const folder of folders) {
    const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const absolute = join(entry.parentPath, entry.name);
      const text = await readFile(absolute, 'utf8');
      const format = sopsFormatOf(entry.name, text);
      if (format) found.push({ absolute, path: relative(root, absolute), format, text });
    }
  }
  return found.filter((file, index) => found.findIndex((other) => other.absolute === file.absolute) === index);
}
