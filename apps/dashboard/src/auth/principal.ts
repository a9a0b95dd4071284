/** Role: viewers read everything; operators may also act (reconcile, suspend, resume, retry). */
export type Role = 'viewer' | 'operator';

/** AccessToken is one configured credential. */
export interface AccessToken {
  name: string;
  role: Role;
  token: string;
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
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
