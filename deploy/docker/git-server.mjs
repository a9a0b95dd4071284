// A sample Git server for the local stack (docker-compose.yml): it commits the folder
// SAMPLE_DIR (examples/sample-repo) into a bare repository and serves it read-only over smart
// HTTP with the real `git http-backend`. Restart it after editing the folder to publish a
// new commit. Plain Node and git only, so the image needs nothing else.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.GIT_SERVER_PORT ?? '8000');
const host = process.env.GIT_SERVER_HOST ?? '0.0.0.0';
const sampleDir = process.env.SAMPLE_DIR ?? '/sample';
const repoName = process.env.REPO_NAME ?? 'sample';
const root = process.env.GIT_PROJECT_ROOT ?? mkdtempSync(join(tmpdir(), 'git-root-'));

/** publish commits the sample folder on branch main and makes it the bare repository <repoName>.git. */
function publish() {
  const work = mkdtempSync(join(tmpdir(), 'git-work-'));
  const git = (...args) => execFileSync('git', ['-c', 'user.name=Tidemark sample', '-c', 'user.email=sample@tidemark.invalid', ...args], { cwd: work, stdio: ['ignore', 'pipe', 'inherit'] });
  cpSync(sampleDir, work, { recursive: true });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '--all');
  git('commit', '--quiet', '--message', `sample repository from ${sampleDir}`);
  const bare = join(root, `${repoName}.git`);
  rmSync(bare, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  execFileSync('git', ['clone', '--quiet', '--bare', work, bare]);
  rmSync(work, { recursive: true, force: true });
  return execFileSync('git', ['-C', bare, 'rev-parse', 'main']).toString().trim();
}

/** serve runs one request through `git http-backend` as a CGI program; without REMOTE_USER it refuses pushes. */
function serve(request, response) {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/healthz') return void response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
  const env = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: request.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: request.headers['content-type'] ?? '',
    REMOTE_ADDR: request.socket.remoteAddress ?? '',
  };
  if (request.headers['content-length']) env.CONTENT_LENGTH = request.headers['content-length'];
  if (request.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = request.headers['content-encoding'];
  if (typeof request.headers['git-protocol'] === 'string') env.GIT_PROTOCOL = request.headers['git-protocol'];
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let started = false;
  child.stdout.on('data', (chunk) => {
    if (started) return void response.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n') >= 0 ? { at: head.indexOf('\r\n\r\n'), length: 4 } : head.indexOf('\n\n') >= 0 ? { at: head.indexOf('\n\n'), length: 2 } : undefined;
    if (!end) return;
    let status = 200;
    const headers = {};
    for (const line of head.subarray(0, end.at).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
      else headers[name] = value;
    }
    response.writeHead(status, headers);
    started = true;
    response.write(head.subarray(end.at + end.length));
  });
  child.on('error', () => { if (!response.headersSent) response.writeHead(500); response.end(); });
  child.on('close', () => { if (!response.headersSent) response.writeHead(500); response.end(); });
}

const commit = publish();
const server = createServer(serve);
server.listen(port, host, () => console.log(`git-server: ${repoName}.git at ${commit} on http://${host}:${server.address().port}/${repoName}.git`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
