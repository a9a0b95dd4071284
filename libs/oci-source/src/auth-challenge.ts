/** AuthChallenge is one WWW-Authenticate challenge of a registry: Basic, or Bearer with the token service's realm. */
export type AuthChallenge =
  | { scheme: 'basic' }
  | { scheme: 'bearer'; realm: string; service?: string; scope?: string };

/**
 * parseAuthChallenge reads the first Basic or Bearer challenge of a WWW-Authenticate header
 * (`Bearer realm="https://auth.example.com/token",service="registry",scope="repository:a/b:pull"`).
 * Anything else (no header, another scheme, a Bearer challenge without realm) is undefined.
 */
export function parseAuthChallenge(header: string | undefined): AuthChallenge | undefined {
  if (!header) return undefined;
  const match = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const scheme = match[1]!.toLowerCase();
  if (scheme === 'basic') return { scheme: 'basic' };
  if (scheme !== 'bearer') return undefined;
  const parameters = new Map<string, string>();
  for (const pair of match[2]!.matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g)) {
    parameters.set(pair[1]!.toLowerCase(), (pair[2] ?? pair[3] ?? '').replace(/\\(.)/g, '$1'));
  }
  const realm = parameters.get('realm');
  if (!realm) return undefined;
  const service = parameters.get('service');
  const scope = parameters.get('scope');
  return { scheme: 'bearer', realm, ...(service ? { service } : {}), ...(scope ? { scope } : {}) };
}
