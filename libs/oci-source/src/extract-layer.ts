import { Readable } from 'node:stream';
import { TarWalkError, walkTar, type TarEntry } from '@tidemark/contracts';
import { OciSourceError } from './oci-source-error';

/** ExtractLimits bound what one layer may hold once inflated. */
export interface ExtractLimits {
  /** Largest single file. */
  maxFileBytes: number;
  /** All bytes of the inflated tar stream, headers included. */
  maxInflatedBytes: number;
  /** Most entries (files and folders). @defaultValue 10_000 */
  maxEntries?: number;
}

/** ArtifactFile is one regular file of an artifact, at its path from the artifact's root. */
export interface ArtifactFile {
  path: string;
  data: Buffer;
  executable: boolean;
}

/**
 * extractLayer reads a layer (a tar, gzip-compressed or not) into memory as a list of files,
 * through the bounded walk every archive gets (walkTar: inflation and entry limits, files and
 * folders only, no absolute path or `..`). A path spelled twice (`a/b` and `./a/b`), or a file
 * where a folder is, also refuses the whole layer: nothing of it is used.
 */
export async function extractLayer(layer: Buffer, limits: ExtractLimits, what: string): Promise<ArtifactFile[]> {
  const files = new Map<string, ArtifactFile>();
  const folders = new Set<string>();
  const gzipped = layer.length >= 2 && layer[0] === 0x1f && layer[1] === 0x8b;
  try {
    await walkTar(Readable.from([layer]), { gzip: gzipped, inside: 'the artifact', maxInflatedBytes: limits.maxInflatedBytes, maxEntries: limits.maxEntries ?? 10_000, maxFileBytes: limits.maxFileBytes }, {
      refuse: (entry) => {
        const refusal = clash(entry, files, folders);
        if (refusal === undefined && entry.type === 'directory' && entry.path !== '') folders.add(entry.path);
        return refusal;
      },
      file: (entry, data) => void files.set(entry.path, { path: entry.path, data, executable: (entry.mode & 0o111) !== 0 }),
    });
  } catch (error) {
    if (!(error instanceof TarWalkError)) throw error;
    throw new OciSourceError(error.kind === 'tooLarge' ? 'OciTooLarge' : 'OciLayerRefused', error.describe(what, 'layer'));
  }
  return [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** clash says why a path may not be added: a second spelling of a file, or a file where a folder is (or the reverse). */
function clash(entry: TarEntry, files: Map<string, ArtifactFile>, folders: Set<string>): string | undefined {
  const { path } = entry;
  if (entry.type === 'file' && (files.has(path) || folders.has(path))) return `the path ${JSON.stringify(path)} appears twice (as two entries or spelled two ways)`;
  if (entry.type === 'directory' && files.has(path)) return `the path ${JSON.stringify(path)} is both a file and a folder`;
  const parts = path.split('/');
  for (let depth = 1; depth < parts.length; depth += 1) {
    if (files.has(parts.slice(0, depth).join('/'))) return `the path ${JSON.stringify(path)} lies under a file`;
  }
  return undefined;
}
