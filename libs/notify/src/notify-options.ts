import type { NotificationReason, Severity } from './notification-event';
import type { Credential } from './credential';

/** ProviderType says which payload a receiver gets. */
export type ProviderType = 'webhook' | 'slack' | 'teams';

/**
 * NotificationProvider is one receiver. Its address is a credential (a Slack or Teams incoming
 * webhook URL is the secret itself), held as SecretText or read from a Secret at each request,
 * and never logged or stored.
 */
export interface NotificationProvider {
  /** 1-63 letters, digits, '.', '_' or '-': it names the provider's queue. */
  readonly name: string;
  readonly type: ProviderType;
  readonly address: Credential;
  /** webhook only: the key of the `X-Signature: sha256=<hex>` HMAC over the raw body. */
  readonly hmacKey?: Credential;
  /** Per request. @defaultValue 5000 */
  readonly timeoutMs: number;
  /** At most `max` requests per `durationMs` to this provider. @defaultValue 30 per 60000 */
  readonly rateLimit: { readonly max: number; readonly durationMs: number };
  /** Attempts in all, the first included, and the first retry's delay (doubling). @defaultValue 8 attempts, 1000 ms */
  readonly retry: { readonly attempts: number; readonly baseMs: number };
}

/**
 * NotificationAlert says which events go to which providers. Every list is optional (absent:
 * any) and its entries are names, where `*` matches any run of characters. Like Flux, severity
 * `info` lets every event through and `error` only errors.
 */
export interface NotificationAlert {
  readonly name: string;
  readonly providers: readonly string[];
  readonly severity: Severity;
  readonly sources?: readonly string[];
  readonly clusters?: readonly string[];
  readonly kinds?: readonly string[];
  readonly namespaces?: readonly string[];
  /** Reasons to send; absent: all. */
  readonly events?: readonly NotificationReason[];
  /** Messages matching any of these are not sent (Flux's exclusionList). */
  readonly exclusions?: readonly RegExp[];
  /** A line put at the top of every message of this alert, e.g. "Production, eu-west". */
  readonly summary?: string;
}
