import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Role } from './principal';
import type { TokenScope } from './token-scope';

/** GroupGrant is one entry of the group mapping: members of `group` get this role and scope. */
export interface GroupGrant {
  readonly group: string;
  readonly role: Role;
  /** Limits the members as a token's scope does; without it, they see everything. */
  readonly scope?: TokenScope;
}

/**
 * OidcSettings is single sign-on through an OpenID provider. The client secret comes from a
 * file or a variable of its own, never from this file, and is never logged.
 */
export interface OidcSettings {
  /** The provider's issuer; https, or http on loopback only. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the provider sends the browser back: this dashboard's `/auth/oidc/callback`. */
  readonly redirectUri: string;
  /** Where the provider sends the browser after its own sign-out. @defaultValue the dashboard's /login */
  readonly postLogoutRedirectUri: string;
  /** Scopes asked for. @defaultValue openid, profile, email, groups */
  readonly scopes: readonly string[];
  /** The ID token claim that lists the user's groups. @defaultValue groups */
  readonly groupsClaim: string;
  /** The claim that names the user in the audit trail and the header. @defaultValue preferred_username, else email, else sub */
  readonly nameClaim?: string;
  /** The client id of `tidemark login`: ID tokens issued to it are taken as bearer tokens on /api/*. */
  readonly cliClientId?: string;
  /** First match wins: a user's role and scope are those of the first entry whose group they have. */
  readonly groups: readonly GroupGrant[];
}

const Scope = Type.Object({
  sources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 256 })),
  namespaces: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 256 })),
  clusters: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 256 })),
}, { additionalProperties: false });

const OidcFile = Type.Object({
  issuer: Type.String({ minLength: 1, maxLength: 2000 }),
  clientId: Type.String({ minLength: 1, maxLength: 256 }),
  redirectUri: Type.String({ minLength: 1, maxLength: 2000 }),
  postLogoutRedirectUri: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  scopes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }), { minItems: 1, maxItems: 32 })),
  groupsClaim: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  nameClaim: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  cliClientId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  groups: Type.Array(Type.Object({
    group: Type.String({ minLength: 1, maxLength: 256 }),
    role: Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('admin')]),
    scope: Type.Optional(Scope),
  }, { additionalProperties: false }), { minItems: 1, maxItems: 1000 }),
}, { additionalProperties: false });
type OidcFile = Static<typeof OidcFile>;

/**
 * parseOidcSettings checks the single sign-on file (JSON) and joins it with the client secret.
 * Errors name the file and the field; they never quote the secret.
 */
export function parseOidcSettings(text: string, where: string, clientSecret: string | undefined): OidcSettings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${where} is not JSON; expected {"issuer", "clientId", "redirectUri", "groups": [{"group", "role"}]}.`);
  }
  if (!Value.Check(OidcFile, value)) {
    const first = Value.Errors(OidcFile, value).First();
    throw new Error(`${where}: ${first ? `${first.path || '/'} ${first.message}` : 'invalid single sign-on settings'}.`);
  }
  const file: OidcFile = value;
  if (!clientSecret) throw new Error(`${where}: the client secret is missing; put it in the file TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET_FILE names (or in TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET).`);
  const issuer = checkEndpoint(file.issuer, `${where}: /issuer`);
  const redirectUri = checkEndpoint(file.redirectUri, `${where}: /redirectUri`);
  if (new URL(redirectUri).pathname !== '/auth/oidc/callback') throw new Error(`${where}: /redirectUri must end in /auth/oidc/callback, the dashboard's callback.`);
  const postLogoutRedirectUri = file.postLogoutRedirectUri ? checkEndpoint(file.postLogoutRedirectUri, `${where}: /postLogoutRedirectUri`) : new URL('/login', redirectUri).href;
  const scopes = file.scopes ?? ['openid', 'profile', 'email', 'groups'];
  if (!scopes.includes('openid')) throw new Error(`${where}: /scopes must include openid.`);
  return Object.freeze({
    issuer, clientId: file.clientId, clientSecret, redirectUri, postLogoutRedirectUri,
    scopes: Object.freeze([...scopes]), groupsClaim: file.groupsClaim ?? 'groups',
    ...(file.nameClaim ? { nameClaim: file.nameClaim } : {}), ...(file.cliClientId ? { cliClientId: file.cliClientId } : {}),
    groups: Object.freeze(file.groups.map((grant, index) => Object.freeze({ group: grant.group, role: grant.role, ...(grant.scope ? { scope: scopeOf(grant.scope, `${where}: /groups/${index}/scope`) } : {}) }))),
  });
}

/** checkEndpoint: an https URL, or http on a loopback host; no credentials, no fragment. */
export function checkEndpoint(text: string, where: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${where} is not a URL.`);
  }
  const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new Error(`${where} must be https (http only on loopback).`);
  if (url.username || url.password || url.hash) throw new Error(`${where} must carry no credentials and no fragment.`);
  return url.href.replace(/\/$/, url.pathname === '/' ? '' : '/');
}

function scopeOf(input: { sources?: string[]; namespaces?: string[]; clusters?: string[] }, where: string): TokenScope {
  const scope = { sources: Object.freeze([...(input.sources ?? [])]), namespaces: Object.freeze([...(input.namespaces ?? [])]), clusters: Object.freeze([...(input.clusters ?? [])]) };
  if (scope.sources.length + scope.namespaces.length + scope.clusters.length === 0) throw new Error(`${where} names no source and no namespace, and no cluster; leave scope out for a group that sees everything.`);
  return Object.freeze(scope);
}

/** GroupVerdict is what a user's groups give: a role and scope, or the reason there is none. */
export type GroupVerdict = { grant: GroupGrant } | { refused: string };

/**
 * grantFor finds the first mapping entry whose group the user has. The claim must be a list of
 * strings (a single string counts as one group); anything else, or no match, is a refusal whose
 * reason the refusal page shows.
 */
export function grantFor(claims: Record<string, unknown>, settings: Pick<OidcSettings, 'groupsClaim' | 'groups'>): GroupVerdict {
  const claim = claims[settings.groupsClaim];
  const groups = typeof claim === 'string' ? [claim] : Array.isArray(claim) && claim.every((group) => typeof group === 'string') ? claim : undefined;
  if (groups === undefined) {
    return { refused: claim === undefined ? `Your identity provider sent no "${settings.groupsClaim}" claim, so no group gives you a role here.` : `The "${settings.groupsClaim}" claim is not a list of group names.` };
  }
  const grant = settings.groups.find((entry) => groups.includes(entry.group));
  if (!grant) return { refused: groups.length === 0 ? 'You are in no group, so no role is given to you here.' : `None of your groups (${groups.slice(0, 20).join(', ')}) is given a role on this dashboard.` };
  return { grant };
}

/** groupsOf reads the groups claim as a bounded list of names, for the session and the audit trail. */
export function groupsOf(claims: Record<string, unknown>, groupsClaim: string): string[] {
  const claim = claims[groupsClaim];
  const groups = typeof claim === 'string' ? [claim] : Array.isArray(claim) ? claim.filter((group): group is string => typeof group === 'string') : [];
  return groups.slice(0, 100).map((group) => group.slice(0, 256));
}

/** nameOf is how a user is named: the configured claim, else preferred_username, email or sub. */
export function nameOf(claims: Record<string, unknown>, nameClaim: string | undefined): string {
  for (const claim of [nameClaim, 'preferred_username', 'email', 'sub']) {
    const value = claim ? claims[claim] : undefined;
    if (typeof value === 'string' && value.length > 0) return value.slice(0, 256);
  }
  return 'unknown';
}
