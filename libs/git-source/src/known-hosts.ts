import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** PinnedHostKeys are the keys known_hosts pins for one host: those accepted, and those revoked. */
export interface PinnedHostKeys {
  readonly accepted: readonly HostKey[];
  readonly revoked: readonly HostKey[];
}

/** HostKey is one public host key: its type ("ssh-ed25519") and its wire-format blob. */
export interface HostKey {
  readonly type: string;
  readonly blob: Buffer;
}

const keyTypes = new Set([
  'ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521',
]);

// The signature algorithms ssh2 negotiates for each key type; an RSA key signs with SHA-2 first.
const algorithmsOfType: Record<string, readonly string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
};

/**
 * pinnedKeys reads an OpenSSH known_hosts text and returns the keys it pins for `name` (as
 * `knownHostsName` spells it). It reads plain and hashed (`|1|salt|hash`) host patterns, `*` and
 * `?` wildcards, `!` negations and `@revoked` lines; `@cert-authority` lines are skipped, so a
 * host pinned only through a CA is unknown. Lines it cannot read pin nothing.
 */
export function pinnedKeys(knownHosts: string, name: string): PinnedHostKeys {
  const accepted: HostKey[] = [];
  const revoked: HostKey[] = [];
  for (const raw of knownHosts.split('\n')) {
    const fields = raw.trim().split(/\s+/);
    if (fields[0] === '' || fields[0]?.startsWith('#')) continue;
    const marker = fields[0]?.startsWith('@') ? fields.shift() : undefined;
    const [patterns, type, base64] = fields;
    if (!patterns || !type || !base64 || !keyTypes.has(type) || marker === '@cert-authority') continue;
    if (!hostMatches(patterns, name)) continue;
    const blob = Buffer.from(base64, 'base64');
    if (blobType(blob) !== type) continue;
    (marker === '@revoked' ? revoked : accepted).push({ type, blob });
  }
  return { accepted, revoked };
}

/** hostKeyAlgorithms lists the signature algorithms of the pinned keys, for the handshake to offer only those. */
export function hostKeyAlgorithms(keys: readonly HostKey[]): string[] {
  return [...new Set(keys.flatMap((key) => algorithmsOfType[key.type] ?? []))];
}

/** fingerprintOf is a key's fingerprint as `ssh-keygen -l` prints it: "SHA256:" and unpadded base64. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** blobType reads the key type a wire-format key blob starts with (a length-prefixed string). */
export function blobType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  return length > 0 && length <= 64 && blob.length >= 4 + length ? blob.toString('latin1', 4, 4 + length) : undefined;
}

/** hostMatches applies a comma-separated host pattern list: any plain pattern matches and no negated one. */
function hostMatches(patterns: string, name: string): boolean {
  if (patterns.startsWith('|1|')) return hashedMatches(patterns, name);
  let matched = false;
  for (const pattern of patterns.split(',')) {
    const negated = pattern.startsWith('!');
    if (!wildcardMatches(negated ? pattern.slice(1) : pattern, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

function hashedMatches(entry: string, name: string): boolean {
  const [, , salt, hash] = entry.split('|');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function wildcardMatches(pattern: string, name: string): boolean {
  const regex = pattern.toLowerCase().replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.');
  return new RegExp(`^${regex}$`).test(name.toLowerCase());
}
