import { readFile, stat } from 'node:fs/promises';
import { TransientError } from '@tidemark/contracts';
import type { SourceAuth } from './source-spec';

/** CredentialFile is a source's secret held in a file: which auth field it fills, and the file. */
export interface CredentialFile {
  readonly field: 'token' | 'password' | 'sshPrivateKey' | 'knownHosts' | 'passphrase';
  readonly path: string;
}

/**
 * fileCredentials gives a source's credentials with fields read from files, each re-read whenever
 * it changes (a mounted Secret that Kubernetes swaps, a token a sidecar refreshes, a rotated deploy
 * key and its known_hosts). Each ask costs one stat per file; a file is read again only when its
 * identity, size or times moved. `auth` is the credentials read at start-up; a file that cannot be
 * read later is a TransientError naming `where`, the field and the path, never the content.
 */
export function fileCredentials(auth: SourceAuth, files: CredentialFile | readonly CredentialFile[], where: string): () => Promise<SourceAuth> {
  const list: readonly CredentialFile[] = Array.isArray(files) ? files : [files as CredentialFile];
  const seen = new Map<string, string>();
  let current = auth;
  return async () => {
    for (const file of list) current = await reread(file, current, seen, where);
    return current;
  };
}

async function reread(file: CredentialFile, current: SourceAuth, seen: Map<string, string>, where: string): Promise<SourceAuth> {
  try {
    const info = await stat(file.path);
    const identity = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
    if (identity === seen.get(file.field)) return current;
    const value = (await readFile(file.path, 'utf8')).trim();
    if (!value) throw new Error('empty');
    seen.set(file.field, identity);
    return { ...current, [file.field]: value } as SourceAuth;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : 'unreadable');
    throw new TransientError('CredentialFileUnreadable', `${where}.auth.${file.field}: cannot read file ${file.path} (${reason}); the source is not fetched until it can be read.`);
  }
}
