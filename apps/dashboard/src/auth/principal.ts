import type { TokenScope } from './token-scope';

/** Role: viewers read everything; operators may also act (reconcile, suspend, resume, retry). */
export type Role = 'viewer' | 'operator';

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
  /** The token's scope, read from the token list at each request (so a narrowed scope applies at once). */
  scope?: TokenScope;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
