import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import { commandExists, RigError, run } from './process';
import { WorkingCopy } from './working-copy';

/** GitServer serves bare repositories over smart HTTP on loopback with the real `git http-backend`. */
export interface GitServer {
  /** baseUrl is http://127.0.0.1:PORT, without credentials. */
  baseUrl: string;
  root: string;
  /** createRepository makes a bare repository and returns its clone URL (without credentials). */
  createRepository(name: string): Promise<string>;
  /** workingCopy clones the repository into a temporary directory for tests to commit and push from. */
  workingCopy(name: string): Promise<WorkingCopy>;
  /** setBasicAuth makes the server accept these credentials from now on, and refuse the ones before (a rotation). */
  setBasicAuth(credentials: { username: string; password: string }): void;
  stop(): Promise<void>;
}

export interface GitServerOptions {
  /** Require HTTP basic auth with these credentials for every request. */
  basicAuth?: { username: string; password: string };
  /**
   * Accept basic-auth credentials that pass this check as well (GitHub takes any unexpired
   * installation token as the password of x-access-token). Working copies still use `basicAuth`.
   */
  accepts?: (credentials: { username: string; password: string }) => boolean;
  /** Runs before each authorized request is served, which waits for it (a test orders requests with it). */
  beforeServe?: (request: { method: string; url: string }) => Promise<void> | void;
}

/** startGitServer starts a smart-HTTP Git server on a free loopback port. */
export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  if (!(await commandExists('git'))) {
    throw new RigError('git is not installed. Run `apt-get install -y git`.');
  }
  const root = await mkdtemp(join(tmpdir(), 'tidemark-git-'));
  let basicAuth = options.basicAuth;
  const server = createServer((request, response) => {
    if ((basicAuth || options.accepts) && !authorized(request, basicAuth, options.accepts)) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="tidemark-test"' }).end();
      return;
    }
    const before = options.beforeServe?.({ method: request.method ?? 'GET', url: request.url ?? '/' });
    if (!before) return serveWithHttpBackend(root, request, response, basicAuth?.username ?? 'tester');
    void Promise.resolve(before).then(() => serveWithHttpBackend(root, request, response, basicAuth?.username ?? 'tester'), () => response.writeHead(500).end());
  });
  const port = await listen(server);
  const baseUrl = `http://127.0.0.1:${port}`;
  const credentialUrl = (name: string) => {
    const url = new URL(`${baseUrl}/${name}.git`);
    if (basicAuth) {
      url.username = basicAuth.username;
      url.password = basicAuth.password;
    }
    return url.toString();
  };
  const copies: WorkingCopy[] = [];
  return {
    baseUrl,
    root,
    async createRepository(name) {
      const path = join(root, `${name}.git`);
      await mkdir(path, { recursive: true });
      await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', path]);
      await run('git', ['-C', path, 'config', 'http.receivepack', 'true']);
      return `${baseUrl}/${name}.git`;
    },
    async workingCopy(name) {
      const copy = await WorkingCopy.clone(credentialUrl(name));
      copies.push(copy);
      return copy;
    },
    setBasicAuth(credentials) {
      basicAuth = credentials;
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all(copies.map((copy) => copy.remove()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

function authorized(request: IncomingMessage, expected: { username: string; password: string } | undefined, accepts: GitServerOptions['accepts']): boolean {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const given = Buffer.from(header.slice(6), 'base64');
  if (accepts) {
    const text = given.toString('utf8');
    const colon = text.indexOf(':');
    if (colon > 0 && accepts({ username: text.slice(0, colon), password: text.slice(colon + 1) })) return true;
  }
  if (!expected) return false;
  const wanted = Buffer.from(`${expected.username}:${expected.password}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address && typeof address === 'object') resolve(address.port);
      else reject(new RigError('the Git server did not report its port'));
    });
  });
}

/** serveWithHttpBackend runs one request through `git http-backend` as a CGI program. */
function serveWithHttpBackend(root: string, request: IncomingMessage, response: ServerResponse, user: string): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: request.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: request.headers['content-type'] ?? '',
    REMOTE_USER: user,
    REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
  };
  if (request.headers['content-length']) env.CONTENT_LENGTH = request.headers['content-length'];
  if (request.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = request.headers['content-encoding'];
  const protocol = request.headers['git-protocol'];
  if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;

  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = findHeaderEnd(head);
    if (!end) return;
    const { status, headers } = parseCgiHeaders(head.subarray(0, end.index).toString('latin1'));
    response.writeHead(status, headers);
    headersSent = true;
    response.write(head.subarray(end.index + end.length));
  });
  child.on('error', () => { if (!response.headersSent) response.writeHead(500); response.end(); });
  child.on('close', () => {
    if (!headersSent && !response.headersSent) response.writeHead(500);
    response.end();
  });
}

function findHeaderEnd(buffer: Buffer): { index: number; length: number } | undefined {
  const crlf = buffer.indexOf('\r\n\r\n');
  if (crlf >= 0) return { index: crlf, length: 4 };
  const lf = buffer.indexOf('\n\n');
  return lf >= 0 ? { index: lf, length: 2 } : undefined;
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
    else headers[name] = value;
  }
  return { status, headers };
}
