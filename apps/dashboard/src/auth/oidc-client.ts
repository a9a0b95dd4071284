import * as client from 'openid-client';
import type { OidcSettings } from './oidc-settings';

/** OidcClientOptions: how long a call to the provider may take, and how much it may answer. */
export interface OidcClientOptions {
  /** @defaultValue 10 (seconds) */
  timeoutSeconds?: number;
  /** @defaultValue 1 MiB */
  maxResponseBytes?: number;
}

/** LoginRequest is what the browser is sent to the provider with; its secrets stay on the server. */
export interface LoginRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** SignedOnClaims are the verified ID token's claims. */
export type SignedOnClaims = Record<string, unknown> & { sub: string };

/**
 * OidcClient is the dashboard as an OpenID relying party (openid-client): the authorization code
 * flow with PKCE, state and nonce. The provider's metadata is read at the first sign-in (so the
 * dashboard starts while the provider is down) and kept. ID token signatures are verified too
 * (enableNonRepudiationChecks), besides iss, aud, exp, iat and nonce, which openid-client checks.
 * Every call is https (http on loopback only), bounded in time and size, and follows no redirect.
 */
export class OidcClient {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(private readonly settings: OidcSettings, private readonly options: OidcClientOptions = {}) {}

  /** startLogin builds the provider's authorization URL with fresh state, nonce and PKCE verifier. */
  async startLogin(): Promise<LoginRequest> {
    const config = await this.config();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri, scope: this.settings.scopes.join(' '), state, nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
    });
    return { url, state, nonce, codeVerifier };
  }

  /**
   * finishLogin redeems the code the provider sent back and returns the verified ID token claims.
   * `query` is the callback's query string; it is read against the configured redirect URI, never
   * against the Host header. Any failed check throws.
   */
  async finishLogin(query: string, expected: Pick<LoginRequest, 'state' | 'nonce' | 'codeVerifier'>): Promise<SignedOnClaims> {
    const config = await this.config();
    const callback = new URL(this.settings.redirectUri);
    callback.search = query;
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: expected.codeVerifier, expectedState: expected.state, expectedNonce: expected.nonce, idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the provider sent no ID token');
    return claims as SignedOnClaims;
  }

  /** endSessionUrl is the provider's sign-out page, when it has one, returning to postLogoutRedirectUri. */
  async endSessionUrl(): Promise<URL | undefined> {
    const config = await this.config();
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(config, { client_id: this.settings.clientId, post_logout_redirect_uri: this.settings.postLogoutRedirectUri });
  }

  /** metadata is the provider's discovered metadata (issuer, jwks_uri, algorithms). */
  async metadata(): Promise<client.ServerMetadata> {
    return (await this.config()).serverMetadata();
  }

  private config(): Promise<client.Configuration> {
    // A failed discovery is not kept: the next sign-in tries again.
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = undefined;
      throw error;
    });
    return this.configuration;
  }

  private async discover(): Promise<client.Configuration> {
    const { settings } = this;
    const fetcher = boundedFetch(this.options.maxResponseBytes ?? 1 << 20);
    const config = await client.discovery(new URL(settings.issuer), settings.clientId, { client_secret: settings.clientSecret }, client.ClientSecretBasic(settings.clientSecret), {
      [client.customFetch]: fetcher, timeout: this.options.timeoutSeconds ?? 10,
      ...(new URL(settings.issuer).protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
    });
    config[client.customFetch] = fetcher;
    config.timeout = this.options.timeoutSeconds ?? 10;
    client.enableNonRepudiationChecks(config);
    return config;
  }
}

/**
 * boundedFetch is fetch for the provider: https, or http on loopback; no redirect followed (the
 * secret must not leave for another origin); a body over `maxBytes` is refused.
 */
export function boundedFetch(maxBytes: number): client.CustomFetch {
  return async (url, options) => {
    const target = new URL(url);
    const loopback = target.hostname === '127.0.0.1' || target.hostname === '[::1]' || target.hostname === 'localhost';
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && loopback)) throw new Error(`the provider's endpoint ${target.origin} is not https`);
    const response = await fetch(url, { ...options, redirect: 'manual' } as RequestInit);
    if (response.status >= 300 && response.status < 400) throw new Error(`the provider's endpoint ${target.origin}${target.pathname} redirected; redirects are not followed`);
    const body = await readBounded(response, maxBytes, `${target.origin}${target.pathname}`);
    // These statuses carry no body, and a Response refuses one.
    return new Response([101, 204, 205, 304].includes(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

async function readBounded(response: Response, maxBytes: number, where: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new Error(`the provider's answer from ${where} is over ${maxBytes} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new Error(`the provider's answer from ${where} is over ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}
