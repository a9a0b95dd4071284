// A stand-in for a registry token service (docker_auth, Harbor's or GitLab's /jwt/auth): no such service
// is built on this machine. It speaks the distribution token protocol (GET realm?service&scope, Basic
// login, a JSON {token, expires_in}) and signs ES256 JWTs that the REAL distribution registry verifies
// against its JWKS file, so the registry side of the token flow is the real one. It records whether each
// request carried a login. Policy: a valid login gets pull and push; anyone gets pull on public/*.
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import type { TestCa } from '@tidemark/testing';

export interface TokenService {
  realm: string;
  service: string;
  issuer: string;
  jwksFile: string;
  /** Each request: whether it carried a login, and the scope it asked for. */
  requests: Array<{ login: boolean; scope: string }>;
  stop(): Promise<void>;
}

export async function startTokenService(ca: TestCa, dir: string, user: { username: string; password: string }): Promise<TokenService> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
  const jwksFile = join(dir, 'jwks.json');
  await writeFile(jwksFile, JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'ES256' }] }));
  const certificate = await ca.issue('token-service', ['127.0.0.1']);
  const service = 'tidemark-test-registry';
  const issuer = 'tidemark-test-token-service';
  const requests: TokenService['requests'] = [];
  const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const server: Server = createServer({ cert: await readFile(certificate.certFile), key: await readFile(certificate.keyFile) }, (request, response) => {
    const url = new URL(request.url ?? '/', 'https://token.invalid');
    const scope = url.searchParams.get('scope') ?? '';
    const header = request.headers.authorization ?? '';
    const login = header.startsWith('Basic ');
    requests.push({ login, scope });
    const valid = login && Buffer.from(header.slice(6), 'base64').toString() === `${user.username}:${user.password}`;
    if (login && !valid) {
      response.writeHead(401).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    const [type, name, actions] = scope.split(':');
    const allowed = valid ? (actions ?? '').split(',') : name?.startsWith('public/') ? ['pull'] : [];
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: issuer, sub: valid ? user.username : '', aud: service, exp: now + 300, nbf: now - 10, iat: now, jti: randomUUID(), access: type === 'repository' ? [{ type, name, actions: allowed }] : [] };
    const unsigned = `${b64({ alg: 'ES256', typ: 'JWT', kid })}.${b64(claims)}`;
    const signature = sign('sha256', Buffer.from(unsigned), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: `${unsigned}.${signature}`, expires_in: 300 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    realm: `https://127.0.0.1:${port}/token`, service, issuer, jwksFile, requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
