import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode } from './cli-error';

/** CliConfig is where the dashboard is and the token to use; read once, frozen. */
export interface CliConfig {
  readonly server: string;
  readonly token?: string;
  /** Where the token came from, for error messages (never the token itself). */
  readonly tokenFrom?: string;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** CliIo is what the program reads and writes: handed in, so tests can run it in-process too. */
export interface CliIo {
  env: Environment;
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
}

/** processIo is this process's environment and streams: the one place the CLI reads them. */
export function processIo(): CliIo {
  return { env: process.env, stdout: process.stdout, stderr: process.stderr };
}

/** defaultServer is the dashboard a local run (`scripts/tidemark-local`) listens on. */
export const defaultServer = 'http://127.0.0.1:8080';

interface ConfigFile { server?: string; token?: string; tokenFile?: string }

/**
 * loadCliConfig resolves the dashboard's address and token: the --server flag, then
 * TIDEMARK_SERVER / TIDEMARK_TOKEN (or TIDEMARK_TOKEN_FILE), then the config file
 * (TIDEMARK_CONFIG, else $XDG_CONFIG_HOME/tidemark/config.json, else ~/.config/tidemark/config.json).
 * A token is never taken from the command line, where `ps` would show it.
 */
export function loadCliConfig(env: Environment, flags: { server?: string } = {}): CliConfig {
  const path = configPath(env);
  const file = readConfigFile(path, env.TIDEMARK_CONFIG !== undefined);
  const server = checkServer(flags.server ?? env.TIDEMARK_SERVER ?? file.server ?? defaultServer, flags.server ? '--server' : env.TIDEMARK_SERVER ? 'TIDEMARK_SERVER' : file.server ? path : 'the default');
  const token = env.TIDEMARK_TOKEN ? { token: env.TIDEMARK_TOKEN, tokenFrom: 'TIDEMARK_TOKEN' }
    : env.TIDEMARK_TOKEN_FILE ? { token: readToken(env.TIDEMARK_TOKEN_FILE), tokenFrom: 'TIDEMARK_TOKEN_FILE' }
      : file.token ? { token: file.token, tokenFrom: path }
        : file.tokenFile ? { token: readToken(file.tokenFile), tokenFrom: `${path} (tokenFile)` } : {};
  return Object.freeze({ server, ...token });
}

function configPath(env: Environment): string {
  if (env.TIDEMARK_CONFIG) return env.TIDEMARK_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), '.config');
  return join(base, 'tidemark', 'config.json');
}

function readConfigFile(path: string, named: boolean): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!named && (error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError('ConfigUnreadable', `cannot read the config file ${path}: ${(error as Error).message}`, ExitCode.Usage);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError('ConfigInvalid', `${path} is not JSON: ${(error as Error).message}`, ExitCode.Usage);
  }
  return checkConfigFile(parsed, path);
}

/** checkConfigFile accepts an object with only string fields server, token and tokenFile. */
export function checkConfigFile(parsed: unknown, path: string): ConfigFile {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError('ConfigInvalid', `${path} must hold a JSON object like {"server": "${defaultServer}", "token": "…"}`, ExitCode.Usage);
  }
  const allowed = new Set(['server', 'token', 'tokenFile']);
  for (const [field, value] of Object.entries(parsed)) {
    if (!allowed.has(field)) throw new CliError('ConfigInvalid', `${path}: unknown field "${field}"; the fields are server, token and tokenFile`, ExitCode.Usage);
    if (typeof value !== 'string' || value.length === 0) throw new CliError('ConfigInvalid', `${path}: field "${field}" must be a non-empty string`, ExitCode.Usage);
  }
  return parsed as ConfigFile;
}

function readToken(path: string): string {
  try {
    const mode = statSync(path).mode;
    if (mode & 0o077) process.stderr.write(`tidemark: warning: ${path} can be read by other users; chmod 600 it.\n`);
    const token = readFileSync(path, 'utf8').trim();
    if (!token) throw new Error('the file is empty');
    return token;
  } catch (error) {
    throw new CliError('TokenUnreadable', `cannot read the token file ${path}: ${(error as Error).message}`, ExitCode.Usage);
  }
}

function checkServer(server: string, from: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliError('ServerInvalid', `the dashboard address from ${from} is not a URL: "${server.slice(0, 200)}"`, ExitCode.Usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('ServerInvalid', `the dashboard address from ${from} must be http:// or https://`, ExitCode.Usage);
  if (url.username || url.password) throw new CliError('ServerInvalid', `the dashboard address from ${from} must not carry credentials; put the token in TIDEMARK_TOKEN or the config file`, ExitCode.Usage);
  return url.origin + url.pathname.replace(/\/+$/, '');
}
