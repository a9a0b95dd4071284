import { createServer, type Server } from 'node:http';
import * as client from 'openid-client';
import { refusePlainHttp } from '../api-client';
import { CliError, ExitCode } from '../cli-error';
import type { Environment } from '../config';
import { readSignOn, removeSignOn, signOnPath, writeSignOn, type StoredSignOn } from '../sign-on-store';

/** SignOnInfo is what the dashboard says about signing in from the CLI (GET /auth/oidc/cli). */
interface SignOnInfo { issuer: string; clientId: string; scopes: string[] }

export interface LoginOptions {
  server: string;
  env: Environment;
  /** Where the person is told what to open (stderr). */
  tell: (text: string) => void;
  /** Use the loopback redirect even where the provider offers the device grant. */
  browser?: boolean;
  /** @defaultValue 300 */
  timeoutSeconds?: number;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * loginCommand signs in through the dashboard's OpenID provider: the device authorization grant
 * where the provider offers it (sign in on any device), else a loopback redirect with PKCE (a
 * browser on this machine). The ID token and refresh token are stored with mode 0600.
 */
export async function loginCommand(options: LoginOptions): Promise<void> {
  refusePlainHttp(options.server);
  const info = await signOnInfo(options.server);
  const config = await providerConfig(info.issuer, info.clientId);
  const deviceGrant = config.serverMetadata().device_authorization_endpoint !== undefined && !options.browser;
  const tokens = deviceGrant ? await deviceLogin(config, info, options) : await loopbackLogin(config, info, options);
  const stored = storedOf(options.server, info, tokens);
  writeSignOn(signOnPath(options.env), stored);
  const claims = tokens.claims();
  options.tell(`Signed in to ${options.server} as ${String(claims?.preferred_username ?? claims?.email ?? claims?.sub ?? 'you')}.\n`);
}

/** logoutCommand revokes the stored refresh token at the provider, where it can, and forgets the sign-on. */
export async function logoutCommand(env: Environment, tell: (text: string) => void): Promise<void> {
  const path = signOnPath(env);
  const stored = readSignOn(path);
  if (!stored) {
    tell('Not signed in.\n');
    return;
  }
  if (stored.refreshToken) {
    try {
      const config = await providerConfig(stored.issuer, stored.clientId);
      if (config.serverMetadata().revocation_endpoint) await client.tokenRevocation(config, stored.refreshToken, { token_type_hint: 'refresh_token' });
    } catch (error) {
      tell(`tidemark: warning: the provider did not revoke the refresh token (${(error as Error).message}); it expires on its own.\n`);
    }
  }
  removeSignOn(path);
  tell(`Signed out of ${stored.server}.\n`);
}

/**
 * signedOnToken is the stored ID token for `server`, refreshed first when it expires within a
 * minute. Undefined when there is no sign-on for that dashboard.
 */
export async function signedOnToken(env: Environment, server: string, now = Date.now() / 1000): Promise<string | undefined> {
  const path = signOnPath(env);
  const stored = readSignOn(path);
  if (!stored || stored.server !== server) return undefined;
  if (stored.expiresAt - 60 > now) return stored.idToken;
  if (!stored.refreshToken) throw new CliError('SignOnExpired', `the sign-on to ${server} has expired; run \`tidemark login\` again`, ExitCode.Failed);
  let tokens;
  try {
    const config = await providerConfig(stored.issuer, stored.clientId);
    tokens = await client.refreshTokenGrant(config, stored.refreshToken);
  } catch (error) {
    throw new CliError('SignOnExpired', `the sign-on to ${server} could not be refreshed (${(error as Error).message}); run \`tidemark login\` again`, ExitCode.Failed, { cause: error });
  }
  const refreshed = storedOf(server, { issuer: stored.issuer, clientId: stored.clientId }, tokens, stored.refreshToken);
  writeSignOn(path, refreshed);
  return refreshed.idToken;
}

async function signOnInfo(server: string): Promise<SignOnInfo> {
  let response: Response;
  try {
    response = await fetch(`${server}/auth/oidc/cli`, { signal: AbortSignal.timeout(30_000), redirect: 'error', headers: { accept: 'application/json' } });
  } catch (error) {
    throw new CliError('ServerUnreachable', `cannot reach the dashboard at ${server} (${(error as Error).message})`, ExitCode.Failed, { cause: error });
  }
  if (response.status === 404) throw new CliError('NoSignOn', `the dashboard at ${server} offers no single sign-on for the CLI; use an access token (TIDEMARK_TOKEN)`, ExitCode.Failed);
  const text = (await response.text()).slice(0, 65_536);
  let info: Partial<SignOnInfo>;
  try {
    info = JSON.parse(text) as Partial<SignOnInfo>;
  } catch {
    info = {};
  }
  if (!response.ok || typeof info.issuer !== 'string' || typeof info.clientId !== 'string' || !Array.isArray(info.scopes)) {
    throw new CliError('BadResponse', `the dashboard at ${server} answered /auth/oidc/cli with HTTP ${response.status} and no sign-on settings`, ExitCode.Failed);
  }
  return { issuer: info.issuer, clientId: info.clientId, scopes: info.scopes.filter((scope): scope is string => typeof scope === 'string') };
}

/** providerConfig discovers the provider for a public client; http only to a loopback issuer. */
async function providerConfig(issuer: string, clientId: string): Promise<client.Configuration> {
  const url = new URL(issuer);
  const insecure = url.protocol === 'http:';
  if (insecure && !loopbackHosts.has(url.hostname)) throw new CliError('InsecureProvider', `the identity provider ${url.origin} is plain http and not on this machine`, ExitCode.Usage);
  try {
    const config = await client.discovery(url, clientId, undefined, client.None(), { timeout: 30, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) });
    client.enableNonRepudiationChecks(config);
    return config;
  } catch (error) {
    throw new CliError('ProviderUnreachable', `cannot read the identity provider ${url.origin}'s metadata (${(error as Error).message})`, ExitCode.Failed, { cause: error });
  }
}

type Tokens = client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

async function deviceLogin(config: client.Configuration, info: SignOnInfo, options: LoginOptions): Promise<Tokens> {
  const started = await client.initiateDeviceAuthorization(config, { scope: scopesOf(info) });
  const where = started.verification_uri_complete ?? started.verification_uri;
  options.tell(`To sign in, open ${where}\nand confirm the code ${started.user_code}.\n`);
  const timeout = AbortSignal.timeout((options.timeoutSeconds ?? Math.min(started.expires_in, 300)) * 1000);
  try {
    return await client.pollDeviceAuthorizationGrant(config, started, undefined, { signal: timeout });
  } catch (error) {
    throw new CliError('SignOnFailed', `the sign-in did not complete: ${(error as Error).message}`, ExitCode.Failed, { cause: error });
  }
}

/** loopbackLogin waits on 127.0.0.1 for the provider to send the browser back with a code. */
async function loopbackLogin(config: client.Configuration, info: SignOnInfo, options: LoginOptions): Promise<Tokens> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const server = createServer();
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  try {
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri, scope: scopesOf(info), state, nonce, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    options.tell(`To sign in, open this address in a browser on this machine:\n${url.href}\n`);
    const callback = await waitForCallback(server, port, (options.timeoutSeconds ?? 300) * 1000);
    return await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError('SignOnFailed', `the sign-in was refused: ${(error as Error).message}`, ExitCode.Failed, { cause: error });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** waitForCallback takes the first GET /callback; anything else is answered 404 and ignored. */
function waitForCallback(server: Server, port: number, timeoutMs: number): Promise<URL> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new CliError('SignOnTimedOut', `no sign-in came back within ${Math.round(timeoutMs / 1000)} s`, ExitCode.Failed)), timeoutMs);
    server.on('request', (request, response) => {
      const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
      if (request.method !== 'GET' || url.pathname !== '/callback') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end('tidemark: the sign-in came back; you may close this tab.\n');
      clearTimeout(timer);
      resolve(url);
    });
  });
}

function scopesOf(info: SignOnInfo): string {
  const scopes = new Set(info.scopes.length > 0 ? info.scopes : ['openid', 'profile', 'email', 'groups']);
  scopes.add('openid');
  scopes.add('offline_access');
  return [...scopes].join(' ');
}

function storedOf(server: string, info: Pick<SignOnInfo, 'issuer' | 'clientId'>, tokens: Tokens, previousRefresh?: string): StoredSignOn {
  const claims = tokens.claims();
  if (!tokens.id_token || !claims) throw new CliError('SignOnFailed', 'the provider sent no ID token', ExitCode.Failed);
  const refreshToken = tokens.refresh_token ?? previousRefresh;
  return { server, issuer: info.issuer, clientId: info.clientId, idToken: tokens.id_token, expiresAt: claims.exp, ...(refreshToken ? { refreshToken } : {}) };
}
