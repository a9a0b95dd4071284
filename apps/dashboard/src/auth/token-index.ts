import { createHash } from 'node:crypto';
import type { AccessToken, Role } from './principal';
import { scopeKey, type TokenScope } from './token-scope';

/**
 * TokenIndex finds the token a request presents. Tokens are looked up by their SHA-256, so
 * the lookup time says nothing about how much of a guess was right. `replace` swaps in a
 * reloaded list and says whose token was removed or changed, so their sessions can end.
 */
export class TokenIndex {
  private byDigest = new Map<string, { name: string; role: Role; scope?: TokenScope }>();
  private byName = new Map<string, AccessToken>();

  constructor(tokens: readonly AccessToken[]) {
    this.replace(tokens);
  }

  find(presented: string): { name: string; role: Role; scope?: TokenScope } | undefined {
    if (presented.length === 0 || presented.length > 512) return undefined;
    return this.byDigest.get(digest(presented));
  }

  /** hasFingerprint tells whether `name` still has the token a session was opened with (and the same role). */
  hasFingerprint(name: string, fingerprint: string, fingerprintOf: (token: string) => string): boolean {
    const current = this.byName.get(name);
    return current !== undefined && fingerprintOf(current.token) === fingerprint;
  }

  /** roleOf is the current role of a name, undefined once it has no token. */
  roleOf(name: string): Role | undefined {
    return this.byName.get(name)?.role;
  }

  /** scopeOf is the current scope of a name (undefined: unlimited, or no token). */
  scopeOf(name: string): TokenScope | undefined {
    return this.byName.get(name)?.scope;
  }

  /** replace swaps in a new token list and returns the names whose token, role or scope was removed or changed. */
  replace(tokens: readonly AccessToken[]): string[] {
    const before = this.byName;
    this.byDigest = new Map(tokens.map((token) => [digest(token.token), { name: token.name, role: token.role, ...(token.scope ? { scope: token.scope } : {}) }]));
    this.byName = new Map(tokens.map((token) => [token.name, token]));
    return [...before.values()]
      .filter((old) => { const now = this.byName.get(old.name); return !now || now.token !== old.token || now.role !== old.role || scopeKey(now.scope) !== scopeKey(old.scope); })
      .map((old) => old.name);
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
