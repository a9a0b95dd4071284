import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { RigError } from './process';

/** A GitHub App installation the stand-in knows: its id and the account it is installed on. */
export interface GitHubAppInstallation {
  id: number;
  owner: string;
}

export interface GitHubAppServerOptions {
  appId: string;
  /** The app's public key (PEM): every app JWT must verify against it. */
  publicKey: string;
  installations: GitHubAppInstallation[];
  /** How long a minted installation token lasts. @defaultValue 3600000, as GitHub's */
  tokenLifetimeMs?: number;
}

/** A minted installation token, as the server remembers it. */
export interface MintedToken {
  token: string;
  installationId: number;
  expiresAt: number;
}

/**
 * GitHubAppServer stands in for GitHub's REST API as a GitHub App uses it (no GitHub is
 * reachable from the rig): `POST /app/installations/:id/access_tokens` and `GET /app/installations`,
 * each with the app's JWT as a bearer token, checked the way GitHub documents it (RS256 signed by
 * the app's private key, `iss` the app id, `exp` in the future and at most ten minutes after `iat`).
 */
export interface GitHubAppServer {
  /** http://127.0.0.1:PORT, the API root (githubAppBaseURL). */
  baseUrl: string;
  /** Tokens minted so far, oldest first. */
  readonly minted: readonly MintedToken[];
  /** Requests refused, with the reason given to the client. */
  readonly refused: readonly string[];
  /** accepts: is this an unexpired token minted here (what a Git host checks)? */
  accepts(token: string): boolean;
  stop(): Promise<void>;
}

/** startGitHubAppServer starts the stand-in on a free loopback port. */
export async function startGitHubAppServer(options: GitHubAppServerOptions): Promise<GitHubAppServer> {
  const key = createPublicKey(options.publicKey);
  const minted: MintedToken[] = [];
  const refused: string[] = [];
  const lifetime = options.tokenLifetimeMs ?? 3_600_000;
  const server = createServer((request, response) => {
    const problem = checkAppJwt(request.headers.authorization, key, options.appId);
    if (problem) {
      refused.push(problem);
      return answer(response, 401, { message: problem, documentation_url: 'https://docs.github.com/rest' });
    }
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const mint = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (request.method === 'POST' && mint) {
      const installation = options.installations.find((candidate) => candidate.id === Number(mint[1]));
      if (!installation) return answer(response, 404, { message: 'Not Found' });
      const token: MintedToken = { token: `ghs_${randomBytes(18).toString('hex')}`, installationId: installation.id, expiresAt: Date.now() + lifetime };
      minted.push(token);
      return answer(response, 201, { token: token.token, expires_at: new Date(token.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z'), permissions: { contents: 'read' }, repository_selection: 'all' });
    }
    if (request.method === 'GET' && path === '/app/installations') {
      return answer(response, 200, options.installations.map(({ id, owner }) => ({ id, app_id: Number(options.appId), account: { login: owner, type: 'Organization' } })));
    }
    answer(response, 404, { message: 'Not Found' });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address && typeof address === 'object') resolve(address.port);
      else reject(new RigError('the GitHub App stand-in did not report its port'));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    minted,
    refused,
    accepts: (token) => minted.some((entry) => entry.token === token && entry.expiresAt > Date.now()),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** checkAppJwt gives why a request's app JWT is refused (GitHub's words), or undefined when it is good. */
function checkAppJwt(authorization: string | undefined, key: KeyObject, appId: string): string | undefined {
  const parts = /^bearer (.+)$/i.exec(authorization ?? '')?.[1]?.split('.');
  if (parts?.length !== 3) return undecodable;
  const [header, payload, signature] = parts as [string, string, string];
  if (decodedPart(header)?.alg !== 'RS256') return undecodable;
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))) return undecodable;
  return checkClaims(decodedPart(payload), appId);
}

const undecodable = 'A JSON web token could not be decoded';

function checkClaims(claims: Record<string, unknown> | undefined, appId: string): string | undefined {
  const now = Math.floor(Date.now() / 1000);
  if (String(claims?.iss) !== appId) return `'Issuer' claim ('iss') must be an Integer`;
  if (typeof claims?.exp !== 'number' || typeof claims.iat !== 'number') return 'Missing \'issued at\' or \'expiration time\' claim';
  if (claims.exp <= now) return '\'Expiration time\' claim (\'exp\') must be a numeric value representing the future time at which the assertion expires';
  if (claims.iat > now + 60 || claims.exp - claims.iat > 600) return '\'Expiration time\' claim (\'exp\') is too far in the future';
  return undefined;
}

function decodedPart(part: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
