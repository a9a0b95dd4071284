import { TransientError } from '@tidemark/contracts';
import { parseAuthChallenge, type AuthChallenge } from './auth-challenge';
import { boundedRequest, type BoundedResponse } from './bounded-request';
import { isLoopbackHost, type OciReference } from './oci-reference';
import { OciSourceError } from './oci-source-error';

/** RegistryCredentials are a registry login (also a token used as the password) or a registry token sent as is. */
export type RegistryCredentials = { readonly username: string; readonly password: string } | { readonly bearerToken: string };

export interface RegistryClientOptions {
  reference: OciReference;
  /** The source's name, for messages. */
  source: string;
  /** The current credentials, asked for at each login (a Secret that rotates). @defaultValue anonymous */
  credentials?: () => Promise<RegistryCredentials | undefined>;
  /** An extra CA (PEM) the registry's certificate may chain to. @defaultValue the system's roots only */
  ca?: string;
  /** Time for one request, body included. @defaultValue 30000 */
  timeoutMs?: number;
}

/** RegistryGet is one request to the source's repository: a path under /v2/<repository>/. */
export interface RegistryGet {
  method: 'GET' | 'HEAD';
  path: string;
  accept?: string;
  maxBytes: number;
  what: string;
  tooLargeCode?: string;
}

const maxRedirects = 5;
const maxTokenBytes = 64 * 1024;
// A token is renewed this long before the expiry its service gave.
const tokenMargin = 10_000;

/**
 * RegistryClient talks to one repository of one registry (the distribution API, /v2/). It logs in
 * as the registry asks: Basic with the source's credentials, or the token flow (a Bearer challenge
 * names a realm, service and scope; the token is fetched there and reused until it expires).
 * Trust rules: credentials go only to the registry's own origin, so a token realm on another
 * origin is asked anonymously (Docker Hub's auth.docker.io serves public repositories that way;
 * a private repository there is refused with a sentence saying why); a redirect is followed only
 * within the origin (a registry that sends blobs to storage on another host is refused, see
 * docs/sources.md); every body is bounded and every request timed.
 */
export class RegistryClient {
  private token: { value: string; expiresAt: number } | undefined;
  private challenge: AuthChallenge | undefined;
  // Why a login was not sent to the token service, for the message when the registry then refuses.
  private withheld: string | undefined;
  /** requests counts the requests sent (logins included), for tests and benchmarks. */
  requests = 0;

  constructor(private readonly options: RegistryClientOptions) {}

  get reference(): OciReference {
    return this.options.reference;
  }

  /** send makes a request to the repository, logging in once when the registry answers 401. */
  async send(get: RegistryGet): Promise<BoundedResponse> {
    const first = await this.follow(get, await this.authorization());
    if (first.status !== 401) return first;
    const challenge = parseAuthChallenge(headerOf(first, 'www-authenticate'));
    if (!challenge) throw this.refused(get, first, 'without a Basic or Bearer challenge');
    this.challenge = challenge;
    this.token = undefined;
    const second = await this.follow(get, await this.authorization());
    if (second.status === 401) throw this.refused(get, second, this.withheld ?? (await this.credentialAdvice()));
    return second;
  }

  /** follow sends a request and follows redirects within the registry's origin only. */
  private async follow(get: RegistryGet, authorization: string | undefined): Promise<BoundedResponse> {
    const { origin, repository } = this.options.reference;
    let url = new URL(`${origin}/v2/${repository}/${get.path}`);
    for (let hop = 0; hop <= maxRedirects; hop += 1) {
      this.requests += 1;
      const response = await boundedRequest({
        method: get.method, url, maxBytes: get.maxBytes, timeoutMs: this.options.timeoutMs ?? 30_000, what: get.what,
        headers: { ...(get.accept ? { accept: get.accept } : {}), ...(authorization ? { authorization } : {}) },
        ...(this.options.ca ? { ca: this.options.ca } : {}),
        ...(get.tooLargeCode ? { tooLargeCode: get.tooLargeCode } : {}),
      });
      const location = headerOf(response, 'location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      const target = new URL(location, url);
      if (target.origin !== origin) {
        throw new OciSourceError('OciRedirectRefused', `${get.what}: ${origin} redirected to ${target.protocol}//${target.host}, which is refused: requests to a registry stay within its origin (registries that serve blobs from another host are not supported yet)`);
      }
      url = target;
    }
    throw new TransientError('OciRedirectRefused', `${get.what}: more than ${maxRedirects} redirects from ${origin}`);
  }

  /** authorization is the header the next request carries, after the last challenge the registry made. */
  private async authorization(): Promise<string | undefined> {
    const credentials = await this.options.credentials?.();
    if (credentials && 'bearerToken' in credentials) return `Bearer ${credentials.bearerToken}`;
    if (!this.challenge) return undefined;
    if (this.challenge.scheme === 'basic') return credentials ? basic(credentials) : undefined;
    if (!this.token || this.token.expiresAt <= Date.now()) this.token = await this.fetchToken(this.challenge, credentials);
    return `Bearer ${this.token.value}`;
  }

  /**
   * fetchToken asks the realm of a Bearer challenge for a pull token. The source's login goes with
   * it only when the realm is the registry's own origin; another origin is asked anonymously.
   */
  private async fetchToken(challenge: Extract<AuthChallenge, { scheme: 'bearer' }>, credentials: RegistryCredentials | undefined): Promise<{ value: string; expiresAt: number }> {
    const { origin, repository } = this.options.reference;
    const what = `source ${this.options.source}: the registry's token service`;
    const realm = realmOf(challenge.realm, what);
    realm.searchParams.set('scope', `repository:${repository}:pull`);
    if (challenge.service) realm.searchParams.set('service', challenge.service);
    const sameOrigin = realm.origin === origin;
    const login = sameOrigin && credentials && 'username' in credentials ? basic(credentials) : undefined;
    this.withheld = !sameOrigin && credentials
      ? `(the registry's token service is on ${realm.origin}, not the registry's origin ${origin}, so the source's credentials were not sent there and only an anonymous token was asked for)`
      : undefined;
    this.requests += 1;
    const response = await boundedRequest({
      method: 'GET', url: realm, headers: login ? { authorization: login } : {}, maxBytes: maxTokenBytes,
      timeoutMs: this.options.timeoutMs ?? 30_000, what, ...(this.options.ca ? { ca: this.options.ca } : {}),
    });
    if (response.status >= 300) {
      throw new OciSourceError('OciAuthFailed', `${what} at ${realm.origin} answered ${response.status} ${this.withheld ?? (await this.credentialAdvice())}`);
    }
    const parsed = parseToken(response.body);
    if (!parsed) throw new OciSourceError('OciAuthFailed', `${what} at ${realm.origin} answered without a token`);
    return { value: parsed.token, expiresAt: Date.now() + Math.max(parsed.expiresInSeconds * 1000 - tokenMargin, 0) };
  }

  private refused(get: RegistryGet, response: BoundedResponse, advice: string): OciSourceError {
    return new OciSourceError('OciAuthFailed', `${get.what}: ${this.options.reference.origin} answered ${response.status} ${advice}`.trim());
  }

  private async credentialAdvice(): Promise<string> {
    const credentials = await this.options.credentials?.();
    return credentials ? '(the credentials were refused: check the username and password or token in the source\'s Secret or credentials file)' : '(the registry wants a login: give the source auth)';
  }
}

/** realmOf reads a token realm: https, or plain http only on loopback. */
function realmOf(text: string, what: string): URL {
  let realm: URL;
  try {
    realm = new URL(text);
  } catch {
    throw new OciSourceError('OciAuthFailed', `${what}: the realm "${text.slice(0, 80)}" is not a URL`);
  }
  if (realm.protocol !== 'https:' && !(realm.protocol === 'http:' && isLoopbackHost(realm.hostname))) {
    throw new OciSourceError('OciAuthFailed', `${what}: the realm ${realm.protocol}//${realm.host} is not https, which is refused`);
  }
  if (realm.username || realm.password) throw new OciSourceError('OciAuthFailed', `${what}: the realm carries credentials in its URL, which is refused`);
  return realm;
}

function basic(credentials: { username: string; password: string }): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
}

function headerOf(response: BoundedResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** parseToken reads a token service's answer: `token` or `access_token`, and `expires_in` (60 s when absent, as the spec says). */
function parseToken(body: Buffer): { token: string; expiresInSeconds: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const record = parsed as Record<string, unknown>;
  const token = typeof record.token === 'string' ? record.token : typeof record.access_token === 'string' ? record.access_token : undefined;
  if (!token || /[\r\n]/.test(token)) return undefined;
  const expires = typeof record.expires_in === 'number' && record.expires_in > 0 ? record.expires_in : 60;
  return { token, expiresInSeconds: expires };
}
