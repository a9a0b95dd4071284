import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';
import { buildGoProgram } from './go-build';
import { RigError, run, stopProcess } from './process';
import { WorkingCopy } from './working-copy';

const giteaDir = resolve(fileURLToPath(import.meta.url), '../../../../test/gitea');

/** giteaBinary is where scripts/setup builds the pinned Gitea (test/gitea, code.gitea.io/gitea v1.26.0). */
export const giteaBinary = join(giteaDir, 'bin', 'gitea');

/**
 * buildGitea builds the pinned Gitea with SQLite (cgo) when its go.mod changed. The first build
 * compiles about 1,500 packages: the longest build of the rig after kube-testenv.
 */
export function buildGitea(log?: (line: string) => void): Promise<string> {
  return buildGoProgram({
    dir: giteaDir,
    binary: giteaBinary,
    label: 'gitea',
    firstBuildNote: 'Gitea v1.26.0 with SQLite (cgo) from the Go module proxy; 20-90 minutes the first time on two cores, seconds later',
    package: 'code.gitea.io/gitea',
    tags: ['sqlite', 'sqlite_unlock_notify'],
    cgo: true,
  }, log);
}

/** GiteaRepository is a repository the admin owns, with a clone URL that carries the admin's token. */
export interface GiteaRepository {
  owner: string;
  name: string;
  /** The clone URL without credentials, as a source's `url` names it. */
  cloneUrl: string;
}

/** TestGitea is a real Gitea on loopback: SQLite in a temporary folder, no SSH, no mail, no outgoing network. */
export interface TestGitea {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  /** http://127.0.0.1:PORT/api/v1 */
  apiUrl: string;
  /** The admin made by `gitea admin user create`; its token (scope all) by `gitea admin user generate-access-token`. */
  admin: { username: string; password: string; token: string };
  /** api calls Gitea's REST API as the admin and returns the parsed JSON body; a status >= 400 rejects with it. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** createRepository makes an empty repository of the admin's. */
  createRepository(name: string): Promise<GiteaRepository>;
  /** workingCopy clones a repository with the admin's credentials, to commit and push from. */
  workingCopy(repository: GiteaRepository): Promise<WorkingCopy>;
  /** stop kills Gitea and removes its folder. Use kill/start to make it unreachable for a while. */
  stop(): Promise<void>;
  /** kill stops the server (its data stays); start starts it again on the same port. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** pause freezes the server (SIGSTOP): connections are accepted by the kernel and never answered, as a hung host; resume thaws it. */
  pause(): void;
  resume(): void;
}

/**
 * startGitea starts the pinned Gitea on a free loopback port with its own SQLite database in a
 * temporary folder: `gitea migrate`, an admin and a token by `gitea admin` commands, then
 * `gitea web`, ready when /api/healthz answers. Webhooks may call loopback only.
 */
export async function startGitea(options: { binary?: string } = {}): Promise<TestGitea> {
  const binary = options.binary ?? giteaBinary;
  await run(binary, ['--version']).catch((error: unknown) => {
    throw new RigError(`Gitea is not built at ${binary} (${error instanceof Error ? error.message.slice(0, 200) : String(error)}). Run scripts/setup, which builds test/gitea.`);
  });
  const assets = await giteaAssets();
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-gitea-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = join(dir, 'app.ini');
  await mkdir(join(dir, 'custom'), { recursive: true });
  await writeFile(config, appIni(dir, port, assets));
  // Gitea refuses root unless told; the rig runs as whoever runs the tests, on loopback only.
  const env = { PATH: process.env.PATH ?? '', HOME: dir, GITEA_WORK_DIR: dir, GITEA_CUSTOM: join(dir, 'custom'), GITEA_I_AM_BEING_UNSAFE_RUNNING_AS_ROOT: 'true' };
  const gitea = (args: string[]) => run(binary, [...args, '--config', config, '--work-path', dir], { env, cwd: dir });
  const admin = { username: 'tidemark-admin', password: `pw-${randomBytes(12).toString('hex')}`, token: '' };
  let child: ChildProcess | undefined;
  const start = async () => {
    // Gitea's console log goes to stdout: its last lines say why it stopped.
    child = spawn(binary, ['web', '--config', config, '--work-path', dir], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk: Buffer) => { tail = `${tail}${chunk.toString()}`.slice(-3000); };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    await waitForHealthz(baseUrl, child, () => tail);
  };
  try {
    await gitea(['migrate']);
    await gitea(['admin', 'user', 'create', '--username', admin.username, '--password', admin.password, '--email', 'admin@tidemark.invalid', '--admin', '--must-change-password=false']);
    // Run as root, Gitea logs warnings on stdout around the token (its logger flushes on its own
    // schedule, so before or after it): the token is the one line that is 40 hex digits.
    const printed = await gitea(['admin', 'user', 'generate-access-token', '--username', admin.username, '--token-name', 'tidemark-rig', '--scopes', 'all', '--raw']);
    const tokens = printed.split('\n').map((line) => line.trim()).filter((line) => /^[0-9a-f]{40}$/.test(line));
    // With no token line, what it printed is only Gitea's log, safe to show.
    if (tokens.length !== 1) throw new RigError(`gitea admin user generate-access-token printed ${tokens.length} token lines, one expected${tokens.length === 0 ? `: ${printed.slice(-500)}` : ''}`);
    admin.token = tokens[0]!;
    await start();
  } catch (error) {
    if (child) await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const apiUrl = `${baseUrl}/api/v1`;
  const copies: WorkingCopy[] = [];
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `token ${admin.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 400) throw new RigError(`Gitea ${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    baseUrl, apiUrl, admin, api,
    async createRepository(name) {
      await api('POST', '/user/repos', { name, private: false, auto_init: false, default_branch: 'main' });
      return { owner: admin.username, name, cloneUrl: `${baseUrl}/${admin.username}/${name}.git` };
    },
    async workingCopy(repository) {
      const url = new URL(repository.cloneUrl);
      url.username = admin.username;
      url.password = admin.token;
      const copy = await WorkingCopy.clone(url.toString());
      copies.push(copy);
      return copy;
    },
    async kill() {
      if (child) await stopProcess(child);
    },
    start,
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async stop() {
      child?.kill('SIGCONT');
      if (child) await stopProcess(child);
      await Promise.all(copies.map((copy) => copy.remove()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * giteaAssets is the pinned module's folder in Go's module cache. A Gitea built with `go build` of the
 * module has no embedded assets (that needs the `bindata` tag and files its Makefile generates), so it
 * reads its locales, templates and options from STATIC_ROOT_PATH; without them `gitea web` stops at
 * start ("translation is missing for task update_mirrors").
 */
async function giteaAssets(): Promise<string> {
  const dir = (await run('go', ['list', '-m', '-f', '{{.Dir}}', 'code.gitea.io/gitea'], { cwd: giteaDir }).catch((error: unknown) => {
    throw new RigError(`cannot find Gitea's module folder with go list in ${giteaDir} (${error instanceof Error ? error.message.slice(0, 200) : String(error)}). Run scripts/setup.`);
  })).trim();
  if (!dir) throw new RigError(`go list found no folder for code.gitea.io/gitea in ${giteaDir}; run scripts/setup, which downloads and builds it.`);
  return dir;
}

/** appIni is a Gitea configuration for one test: loopback, SQLite, installed, nothing outgoing; assets from the module's folder. */
function appIni(dir: string, port: number, assets: string): string {
  const secret = () => randomBytes(32).toString('hex');
  return `APP_NAME = tidemark-rig
RUN_MODE = prod
RUN_USER = ${userInfo().username}
WORK_PATH = ${dir}

[database]
DB_TYPE = sqlite3
PATH = ${join(dir, 'gitea.db')}

[server]
STATIC_ROOT_PATH = ${assets}
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = ${port}
ROOT_URL = http://127.0.0.1:${port}/
DOMAIN = 127.0.0.1
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false
APP_DATA_PATH = ${join(dir, 'data')}

[repository]
ROOT = ${join(dir, 'repositories')}
DEFAULT_BRANCH = main

[security]
INSTALL_LOCK = true
SECRET_KEY = ${secret()}
INTERNAL_TOKEN = ${secret()}

[oauth2]
ENABLED = false

[service]
DISABLE_REGISTRATION = true
REQUIRE_SIGNIN_VIEW = false

[mailer]
ENABLED = false

[actions]
ENABLED = false

[cron]
ENABLED = false

[cron.update_checker]
ENABLED = false

[indexer]
ISSUE_INDEXER_TYPE = db
REPO_INDEXER_ENABLED = false

[session]
PROVIDER = memory

[cache]
ADAPTER = memory

[queue]
TYPE = channel

[webhook]
ALLOWED_HOST_LIST = loopback

[migrations]
ALLOW_LOCALNETWORKS = false

[log]
MODE = console
LEVEL = Warn
ROOT_PATH = ${join(dir, 'log')}
`;
}

async function waitForHealthz(baseUrl: string, child: ChildProcess, tail: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new RigError(`gitea web exited with code ${child.exitCode} before it was ready: ${tail()}`);
    const ok = await fetch(`${baseUrl}/api/healthz`, { signal: AbortSignal.timeout(2_000) }).then((response) => response.ok, () => false);
    if (ok) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new RigError(`gitea web did not answer ${baseUrl}/api/healthz within 180 s: ${tail()}`);
}
