import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, ExitCode } from '../cli-error';
import type { Environment } from '../config';

/** GitCredentials log in to the repository over HTTPS (basic auth; a token is the password). */
export interface GitCredentials {
  username: string;
  password: string;
}

/** GitTarget is the repository bootstrap writes to. */
export interface GitTarget {
  url: string;
  branch: string;
  credentials?: GitCredentials;
}

/** Every git command ends within this time. */
const gitTimeoutMs = 120_000;

/**
 * CommitOutcome says what writeAndPush did: the commit it pushed, or that the branch already held
 * the files (then nothing is committed or pushed).
 */
export type CommitOutcome = { changed: true; revision: string } | { changed: false; revision: string };

/**
 * writeAndPush clones the branch (or starts it, in an empty repository), writes the files,
 * and commits and pushes only when they differ from what the branch holds. Credentials go to git
 * as an Authorization header scoped to the repository's origin, through the environment (never
 * argv, never the remote URL or .git/config), and git follows no redirect, so they reach no other host.
 */
export async function writeAndPush(target: GitTarget, files: Readonly<Record<string, string>>, message: string, env: Environment): Promise<CommitOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-bootstrap-'));
  const gitEnv = gitEnvironment(target, env);
  const git = (args: string[]) => runGit(args, dir, gitEnv);
  try {
    await git(['init', '--quiet', '--initial-branch', target.branch]);
    await git(['remote', 'add', 'origin', target.url]);
    const remote = await git(['ls-remote', '--heads', 'origin', `refs/heads/${target.branch}`]);
    if (remote.trim()) {
      await git(['fetch', '--quiet', '--depth', '1', 'origin', `refs/heads/${target.branch}`]);
      await git(['checkout', '--quiet', '-B', target.branch, 'FETCH_HEAD']);
    }
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    await git(['add', '--all', '--', ...Object.keys(files)]);
    const status = await git(['status', '--porcelain', '--', ...Object.keys(files)]);
    if (!status.trim()) return { changed: false, revision: (await git(['rev-parse', 'HEAD'])).trim() };
    await git(['commit', '--quiet', '-m', message]);
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${target.branch}`]);
    return { changed: true, revision: (await git(['rev-parse', 'HEAD'])).trim() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function gitEnvironment(target: GitTarget, env: Environment): Record<string, string> {
  const origin = new URL(target.url).origin;
  const config: [string, string][] = [
    ['http.followRedirects', 'false'],
    ['user.name', 'tidemark bootstrap'],
    ['user.email', 'bootstrap@tidemark.invalid'],
    ['commit.gpgSign', 'false'],
  ];
  if (target.credentials) {
    const basic = Buffer.from(`${target.credentials.username}:${target.credentials.password}`).toString('base64');
    config.push([`http.${origin}/.extraHeader`, `Authorization: Basic ${basic}`]);
  }
  return {
    PATH: env.PATH ?? '', HOME: env.HOME ?? '/nonexistent',
    // No prompt, no system or user config: only what is set here.
    GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(config.flatMap(([key, value], index) => [[`GIT_CONFIG_KEY_${index}`, key], [`GIT_CONFIG_VALUE_${index}`, value]])),
  };
}

function runGit(args: string[], cwd: string, env: Record<string, string>): Promise<string> {
  return new Promise((done, fail) => {
    execFile('git', args, { cwd, env, timeout: gitTimeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return done(stdout);
      // git's message may quote the header's name but never its value; the URL carries no credentials.
      const line = stderr.trim().split('\n').filter((text) => !/authorization/i.test(text)).slice(-2).join('; ') || error.message;
      fail(new CliError('GitFailed', `git ${args[0]} failed: ${line}`));
    });
  });
}

/** Larger than any credentials file; a bigger one is not one. */
const maxCredentialBytes = 64 * 1024;

/**
 * gitCredentialsOf reads the credentials from a file (JSON {"username", "password"}) or from
 * TIDEMARK_GIT_USERNAME and TIDEMARK_GIT_PASSWORD (or TIDEMARK_GIT_TOKEN, a token as the
 * password); never from the command line.
 */
export async function gitCredentialsOf(file: string | undefined, env: Environment): Promise<GitCredentials | undefined> {
  if (file) {
    const { readFile, stat } = await import('node:fs/promises');
    let parsed: unknown;
    try {
      if ((await stat(file)).size > maxCredentialBytes) throw new Error(`larger than ${maxCredentialBytes} bytes`);
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new CliError('CredentialsUnreadable', `cannot read the Git credentials file ${file}: ${(error as Error).message.split('\n')[0]}`, ExitCode.Usage);
    }
    const value = parsed as Partial<GitCredentials> | null;
    if (typeof value?.username !== 'string' || typeof value.password !== 'string' || !value.username || !value.password) {
      throw new CliError('CredentialsInvalid', `${file} must hold {"username": "...", "password": "..."} (a token is the password)`, ExitCode.Usage);
    }
    return { username: value.username, password: value.password };
  }
  const password = env.TIDEMARK_GIT_PASSWORD || env.TIDEMARK_GIT_TOKEN;
  if (!password) return undefined;
  return { username: env.TIDEMARK_GIT_USERNAME || 'git', password };
}

/** checkGitUrl accepts https, or plain http to a loopback host; never credentials in the URL. */
export function checkGitUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError('UrlInvalid', `--url is not a URL: "${text.slice(0, 200)}"`, ExitCode.Usage);
  }
  if (url.username || url.password) throw new CliError('UrlInvalid', '--url must not carry credentials; give them in TIDEMARK_GIT_PASSWORD (or TIDEMARK_GIT_TOKEN) or --credentials-file', ExitCode.Usage);
  const loopback = ['localhost', '[::1]'].includes(url.hostname) || /^127(\.\d{1,3}){3}$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new CliError('UrlInvalid', '--url must be https:// (plain http only to a loopback address)', ExitCode.Usage);
  return url.toString();
}

/** checkRepoPath accepts a relative folder such as clusters/dev: no `..`, no leading slash, no empty part. */
export function checkRepoPath(text: string): string {
  const path = text.replace(/\/+$/, '');
  if (!path || path.startsWith('/') || path.split('/').some((part) => part === '' || part === '.' || part === '..') || !/^[A-Za-z0-9._/-]+$/.test(path) || path.length > 200) {
    throw new CliError('PathInvalid', `--path must be a folder inside the repository such as clusters/dev (letters, digits, . _ - and /; no ..), not "${text.slice(0, 100)}"`, ExitCode.Usage);
  }
  return path;
}

/** checkBranch accepts a branch name git would (a conservative subset). */
export function checkBranch(text: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/.test(text) || text.includes('..') || text.endsWith('.lock') || text.endsWith('/')) {
    throw new CliError('BranchInvalid', `--branch is not a branch name: "${text.slice(0, 100)}"`, ExitCode.Usage);
  }
  return text;
}
