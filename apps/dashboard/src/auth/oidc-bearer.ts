import { createRemoteJWKSet, customFetch, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { boundedFetch, type OidcClient } from './oidc-client';
import { grantFor, groupsOf, nameOf, type OidcSettings } from './oidc-settings';
import type { Principal } from './principal';

/** A bearer that is a compact JWS: three base64url parts. */
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** BearerVerdict: the principal an ID token names, or why it was refused (never the token). */
export type BearerVerdict = { principal: Principal } | { refused: string } | undefined;

/**
 * OidcBearer takes the ID tokens `tidemark login` got from the provider as bearer tokens on
 * /api/*: signed by the provider's keys (its jwks_uri), issued by the configured issuer, for the
 * CLI's client id, unexpired. Groups give the role and scope as they do at a browser sign-in.
 * A bearer that is no JWT is not looked at (undefined): it may be a static token.
 */
export class OidcBearer {
  private keys: JWTVerifyGetKey | undefined;

  constructor(private readonly settings: OidcSettings & { cliClientId: string }, private readonly oidc: OidcClient) {}

  async verify(bearer: string): Promise<BearerVerdict> {
    if (bearer.length > 16_384 || !compactJws.test(bearer)) return undefined;
    let claims: Record<string, unknown>;
    try {
      const metadata = await this.oidc.metadata();
      const { payload } = await jwtVerify(bearer, await this.keySet(), {
        issuer: this.settings.issuer, audience: this.settings.cliClientId, requiredClaims: ['exp', 'iat', 'sub'],
        algorithms: metadata.id_token_signing_alg_values_supported?.filter((alg) => alg !== 'none') ?? ['RS256'], clockTolerance: 30,
      });
      claims = payload;
    } catch (error) {
      return { refused: `the ID token was refused: ${(error as { code?: string }).code ?? 'invalid'}` };
    }
    const verdict = grantFor(claims, this.settings);
    if ('refused' in verdict) return verdict;
    const { role, scope } = verdict.grant;
    return { principal: { name: nameOf(claims, this.settings.nameClaim), role, via: 'bearer', groups: groupsOf(claims, this.settings.groupsClaim), ...(scope ? { scope } : {}) } };
  }

  private async keySet(): Promise<JWTVerifyGetKey> {
    if (this.keys) return this.keys;
    const jwksUri = (await this.oidc.metadata()).jwks_uri;
    if (!jwksUri) throw Object.assign(new Error('the provider publishes no jwks_uri'), { code: 'NoJwks' });
    const fetcher = boundedFetch(1 << 20);
    this.keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 10_000, cooldownDuration: 30_000, [customFetch]: (url: string, options: RequestInit) => fetcher(url, options as Parameters<typeof fetcher>[1]) });
    return this.keys;
  }
}

/** hasCliClient narrows settings to those naming the CLI's client. */
export function hasCliClient(settings: OidcSettings): settings is OidcSettings & { cliClientId: string } {
  return settings.cliClientId !== undefined;
}
