import { createHash } from 'node:crypto';
import type { AccessToken, Role } from './principal';

/**
 * TokenIndex finds the token a request presents. Tokens are looked up by their SHA-256, so
 * the lookup time says nothing about how much of a guess was right.
 */
export class TokenIndex {
  private readonly byDigest = new Map<string, { name: string; role: Role }>();

  constructor(tokens: readonly AccessToken[]) {
    for (const token of tokens) this.byDigest.set(digest(token.token), { name: token.name, role: token.role });
  }

  find(presented: string): { name: string; role: Role } | undefined {
    if (presented.length === 0 || presented.length > 512) return undefined;
    return this.byDigest.get(digest(presented));
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
