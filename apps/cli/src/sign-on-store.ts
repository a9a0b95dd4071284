import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, ExitCode } from './cli-error';
import type { Environment } from './config';

/**
 * StoredSignOn is what `tidemark login` keeps: the provider and client it signed in with, the ID
 * token the dashboard takes as a bearer token, when that expires, and the refresh token.
 */
export interface StoredSignOn {
  server: string;
  issuer: string;
  clientId: string;
  idToken: string;
  /** When the ID token expires, seconds since the epoch. */
  expiresAt: number;
  refreshToken?: string;
}

/** signOnPath is $TIDEMARK_SIGN_ON_FILE, else $XDG_CONFIG_HOME/tidemark/sign-on.json (~/.config by default). */
export function signOnPath(env: Environment): string {
  if (env.TIDEMARK_SIGN_ON_FILE) return env.TIDEMARK_SIGN_ON_FILE;
  const base = env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), '.config');
  return join(base, 'tidemark', 'sign-on.json');
}

/** readSignOn returns the stored sign-on, or undefined when there is none. A damaged file is an error naming it. */
export function readSignOn(path: string): StoredSignOn | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError('SignOnUnreadable', `cannot read ${path}: ${(error as Error).message}`, ExitCode.Usage);
  }
  let value: Partial<StoredSignOn>;
  try {
    value = JSON.parse(text) as Partial<StoredSignOn>;
  } catch {
    throw new CliError('SignOnInvalid', `${path} is not JSON; run \`tidemark login\` again`, ExitCode.Usage);
  }
  const strings = ['server', 'issuer', 'clientId', 'idToken'] as const;
  if (strings.some((field) => typeof value[field] !== 'string') || typeof value.expiresAt !== 'number' || (value.refreshToken !== undefined && typeof value.refreshToken !== 'string')) {
    throw new CliError('SignOnInvalid', `${path} is not a sign-on tidemark wrote; run \`tidemark login\` again`, ExitCode.Usage);
  }
  return value as StoredSignOn;
}

/** writeSignOn stores a sign-on readable by its owner only (mode 0600, in a 0700 folder). */
export function writeSignOn(path: string, signOn: StoredSignOn): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(signOn, null, 2)}\n`, { mode: 0o600 });
  // An older file keeps its mode through writeFileSync: set it again.
  chmodSync(path, 0o600);
}

export function removeSignOn(path: string): void {
  rmSync(path, { force: true });
}
