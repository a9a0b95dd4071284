import type { WrittenFile } from '../materialise';

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

/** findSopsFiles picks the sops-encrypted files out of a unit's written input files. */
export function findSopsFiles(files: readonly WrittenFile[]): SopsFile[] {
  const found: SopsFile[] = [];
  for (const file of files) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    if (!/\.(ya?ml|json|env)$/i.test(name)) continue;
    const text = new TextDecoder().decode(file.bytes);
    const format = sopsFormatOf(name, text);
    if (format) found.push({ absolute: file.absolute, path: file.path, format, text });
  }
  return found;
}
