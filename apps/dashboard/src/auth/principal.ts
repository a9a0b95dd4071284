import type { TokenScope } from './token-scope';

/**
 * Role: viewers read everything; operators may also act (reconcile, suspend, resume, retry).
 * Admins may do all an operator may; no action needs more yet.
 */
export type Role = 'viewer' | 'operator' | 'admin';

/** roles lists every role, least first. */
export const roles: readonly Role[] = ['viewer', 'operator', 'admin'];

/** mayAct tells whether a principal may act (every action needs at least the operator role). */
export function mayAct<P extends { role: Role }>(principal: P | undefined): principal is P {
  return principal?.role === 'operator' || principal?.role === 'admin';
}

/** AccessToken is one configured credential. */
export interface AccessToken {
  name: string;
  role: Role;
  token: string;
  /** Limits the token to some sources and namespaces; without it, it sees everything. */
  scope?: TokenScope;
}

/**
 * Principal is who made a request and how. `csrf` is set for session-cookie requests only:
 * a browser attaches cookies by itself, so their writes must prove they came from our pages.
 */
export interface Principal {
  name: string;
  role: Role;
  via: 'bearer' | 'session';
  csrf?: string;
  /**
   * The scope: a token's is read from the token list at each request (so a narrowed scope applies
   * at once); a single sign-on user's is the one their groups gave at sign-in.
   */
  scope?: TokenScope;
  /** A single sign-on user's groups (from the provider), as they were at sign-in. */
  groups?: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
