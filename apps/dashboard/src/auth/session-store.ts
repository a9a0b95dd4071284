import { createHash, createHmac, randomBytes } from 'node:crypto';
import { jsonRecordOf, type RecordKeys } from '@tidemark/contracts';
import { roles, type Role } from './principal';
import { sameText } from './session-cookie';
import type { TokenIndex } from './token-index';
import type { TokenScope } from './token-scope';
import type { RedisClient } from '@tidemark/contracts';

/** Session is what the server keeps for a signed-in browser: who, until when, and its CSRF token. */
export interface Session {
  name: string;
  role: Role;
  /** Per-session CSRF token, echoed by forms and by JSON requests in a header. */
  csrf: string;
  /** Expiry, ms since the epoch. */
  exp: number;
  /** Set for a single sign-on session: who the provider said, and what their groups gave. */
  signOn?: SignOn;
}

/** SignOn is what a single sign-on session keeps: the provider's subject, the groups and the scope they gave at sign-in. */
export interface SignOn {
  subject: string;
  groups: string[];
  scope?: TokenScope;
}

interface StoredSession extends Session {
  /** HMAC of the token the session signed in with: a changed or removed token ends it ('' for single sign-on). */
  token: string;
  /**
   * HMAC under the session secret of the id's hash and the record's fields: the record is valid
   * under its own key only, so one copied (or written) in Redis under another id is no session.
   */
  mac: string;
}

export interface SessionStoreOptions {
  redis: RedisClient;
  /** The deployment's record keys (dashboardSession, dashboardSessionsOf). */
  keys: RecordKeys;
  tokens: TokenIndex;
  /** Key of the token fingerprints and of the records' MACs; never stored. */
  secret: string;
  /** @defaultValue 12 hours */
  lifetimeMs?: number;
}

/**
 * SessionStore keeps sessions in Redis; the cookie carries only a random id. Redis holds the
 * id's SHA-256, so reading Redis does not yield a usable cookie, and no token or token hash
 * (only an HMAC under a key Redis never sees). Each record carries a MAC binding it to its id's
 * hash, so whoever may write Redis cannot copy a session under an id they know: such a record is
 * no session, and is deleted. Signing out deletes the session; a token that is
 * removed or changed ends every session opened with it, at once when the tokens are reloaded and
 * in any case at the session's next request.
 */
export class SessionStore {
  readonly lifetimeMs: number;

  constructor(private readonly options: SessionStoreOptions) {
    this.lifetimeMs = options.lifetimeMs ?? 12 * 3600_000;
  }

  get maxAgeSeconds(): number {
    return Math.floor(this.lifetimeMs / 1000);
  }

  /** issue opens a session for a token that just signed in (and belongs to `name`, when given); it returns the cookie value. */
  async issue(token: string, claimed: { name?: string } = {}, now = Date.now()): Promise<{ id: string; session: Session } | undefined> {
    const found = this.options.tokens.find(token);
    if (!found || (claimed.name !== undefined && claimed.name !== found.name)) return undefined;
    const id = randomBytes(32).toString('base64url');
    const session: Session = { name: found.name, role: found.role, csrf: randomBytes(24).toString('base64url'), exp: now + this.lifetimeMs };
    const fields = { ...session, token: this.fingerprint(token) };
    const stored: StoredSession = { ...fields, mac: this.mac(digest(id), fields) };
    await this.options.redis.multi()
      .set(this.key(id), JSON.stringify(stored), 'PX', this.lifetimeMs)
      .sadd(this.byName(found.name), digest(id))
      .pexpire(this.byName(found.name), this.lifetimeMs)
      .exec();
    return { id, session };
  }

  /**
   * issueSignedOn opens a session for a user the OpenID provider vouched for. Its role and scope
   * are fixed at sign-in from the user's groups: a changed mapping or group applies at the next one.
   */
  async issueSignedOn(user: { name: string; role: Role; signOn: SignOn }, now = Date.now()): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString('base64url');
    const session: Session = { name: user.name, role: user.role, csrf: randomBytes(24).toString('base64url'), exp: now + this.lifetimeMs, signOn: user.signOn };
    const fields = { ...session, token: '' };
    const stored: StoredSession = { ...fields, mac: this.mac(digest(id), fields) };
    const owner = signOnOwner(user.signOn.subject);
    await this.options.redis.multi()
      .set(this.key(id), JSON.stringify(stored), 'PX', this.lifetimeMs)
      .sadd(this.byName(owner), digest(id))
      .pexpire(this.byName(owner), this.lifetimeMs)
      .exec();
    return { id, session };
  }

  /** verify returns the live session of a cookie value, or undefined (unknown, ended, expired, token changed). */
  async verify(id: string, now = Date.now()): Promise<Session | undefined> {
    if (id.length === 0 || id.length > 128) return undefined;
    const text = await this.options.redis.get(this.key(id));
    const stored = text ? parseStored(text) : undefined;
    if (!stored) return undefined;
    if (!sameText(stored.mac, this.mac(digest(id), stored))) {
      // Not written for this id: copied from another session's key, or forged.
      await this.end(id);
      return undefined;
    }
    const { tokens } = this.options;
    // A single sign-on session answers to the provider, not to the token list.
    const stale = stored.signOn === undefined
      && (tokens.roleOf(stored.name) !== stored.role || !tokens.hasFingerprint(stored.name, stored.token, (value) => this.fingerprint(value)));
    if (stored.exp <= now || stale) {
      await this.end(id);
      return undefined;
    }
    return { name: stored.name, role: stored.role, csrf: stored.csrf, exp: stored.exp, ...(stored.signOn ? { signOn: stored.signOn } : {}) };
  }

  /** end deletes one session (sign-out). */
  async end(id: string): Promise<void> {
    await this.options.redis.del(this.key(id));
  }

  /** endAllOf deletes every session a name signed in with; returns how many ended. */
  async endAllOf(name: string): Promise<number> {
    const ids = await this.options.redis.smembers(this.byName(name));
    const keys = ids.map((hashed) => this.options.keys.dashboardSession(hashed));
    const ended = keys.length > 0 ? await this.options.redis.del(...keys) : 0;
    await this.options.redis.del(this.byName(name));
    return ended;
  }

  private key(id: string): string {
    return this.options.keys.dashboardSession(digest(id));
  }

  private byName(name: string): string {
    return this.options.keys.dashboardSessionsOf(name);
  }

  /** mac binds a record's fields to the hash of its id, under the session secret. */
  private mac(idHash: string, record: Omit<StoredSession, 'mac'>): string {
    const fields: unknown[] = [idHash, record.name, record.role, record.csrf, record.exp, record.token];
    if (record.signOn) fields.push(record.signOn.subject, record.signOn.groups, record.signOn.scope ?? null);
    const canonical = JSON.stringify(fields);
    return createHmac('sha256', this.options.secret).update('tidemark-session\0').update(canonical).digest('base64url');
  }

  private fingerprint(token: string): string {
    return createHmac('sha256', this.options.secret).update(token).digest('base64url');
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** signOnOwner is the name a single sign-on user's sessions are listed under: never a token's name. */
export function signOnOwner(subject: string): string {
  return `oidc\0${subject}`;
}

/**
 * parseStored reads a session record field by field into a new object (unknown keys are not carried
 * over); the MAC then proves our server wrote these fields for this id.
 */
function parseStored(text: string): StoredSession | undefined {
  const value = jsonRecordOf(text);
  if (!value) return undefined;
  const { name, role, csrf, exp, token, mac, signOn } = value;
  const valid = typeof name === 'string' && roles.includes(role as Role)
    && typeof csrf === 'string' && typeof exp === 'number' && typeof token === 'string' && typeof mac === 'string'
    && (signOn === undefined || validSignOn(signOn));
  return valid ? { name, role: role as Role, csrf, exp, token, mac, ...(signOn === undefined ? {} : { signOn: signOn as SignOn }) } : undefined;
}

function validSignOn(value: unknown): boolean {
  const signOn = value as Partial<SignOn> | null;
  const list = (items: unknown) => Array.isArray(items) && items.every((item) => typeof item === 'string');
  const scope = signOn?.scope as Partial<TokenScope> | undefined;
  return typeof signOn?.subject === 'string' && list(signOn.groups) && (scope === undefined || (list(scope.sources) && list(scope.namespaces) && list(scope.clusters)));
}
