import { readFile, stat } from 'node:fs/promises';
import { TransientError } from '@tidemark/contracts';
import type { SourceAuth } from './source-spec';

/** CredentialFile is a source's secret held in a file: which auth field it fills, and the file. */
export interface CredentialFile {
  readonly field: 'token' | 'password';
  readonly path: string;
}

/**
 * fileCredentials gives a source's credentials with one field read from a file, re-read whenever
 * the file changes (a mounted Secret that Kubernetes swaps, a token a sidecar refreshes). Each ask
 * costs one stat; the file is read again only when its identity, size or times moved. `auth` is
 * the credentials read at start-up; a file that cannot be read later is a TransientError naming
 * `where` and the path, never the content.
 */
export function fileCredentials(auth: SourceAuth, file: CredentialFile, where: string): () => Promise<SourceAuth> {
  let seen: string | undefined;
  let current = auth;
  return async () => {
    try {
      const info = await stat(file.path);
      const identity = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
      if (identity === seen) return current;
      const value = (await readFile(file.path, 'utf8')).trim();
      if (!value) throw new Error('empty');
      current = { ...current, [file.field]: value } as SourceAuth;
      seen = identity;
      return current;
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : 'unreadable');
      throw new TransientError('CredentialFileUnreadable', `${where}.auth.${file.field}: cannot read file ${file.path} (${reason}); the source is not fetched until it can be read.`);
    }
  };
}
