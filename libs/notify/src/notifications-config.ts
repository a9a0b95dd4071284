import { Type, type Static } from '@sinclair/typebox';
import { addressProblem } from './credential';
import { notificationReasons, type NotificationReason } from './notification-event';
import type { NotificationAlert, NotificationProvider } from './notify-options';
import { SecretText } from './secret-text';

const SecretReadInput = Type.Union([
  Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ file: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
]);
type SecretReadInput = Static<typeof SecretReadInput>;

/** A credential from the environment, a file, or a key of a Kubernetes Secret; never in the config file itself. */
const CredentialInput = Type.Union([
  SecretReadInput,
  Type.Object({
    secretRef: Type.Object({
      /** @defaultValue the first cluster */
      cluster: Type.Optional(Type.String({ minLength: 1 })),
      namespace: Type.String({ minLength: 1 }),
      name: Type.String({ minLength: 1 }),
      key: Type.String({ minLength: 1 }),
    }, { additionalProperties: false }),
  }, { additionalProperties: false }),
]);
type CredentialInput = Static<typeof CredentialInput>;

/** SecretKeyRef names one key of a Secret, read through a registered cluster at each request (a rotated URL is used at once). */
export interface SecretKeyRef {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly key: string;
}

/** NotificationProviderConfig is a provider as configured: each credential read at load, or a Secret key the wiring reads later. */
export type NotificationProviderConfig = Omit<NotificationProvider, 'address' | 'hmacKey'> & {
  readonly address: SecretText | { readonly secretRef: SecretKeyRef };
  readonly hmacKey?: SecretText | { readonly secretRef: SecretKeyRef };
};

const NameList = Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1 });

/** NotificationsInput is the `notifications` section of tidemark.yaml. */
export const NotificationsInput = Type.Object({
  /** How often cluster health and source records are read. @defaultValue 5000 */
  pollIntervalMs: Type.Optional(Type.Integer({ minimum: 200, maximum: 600_000 })),
  /** How often every object record is read again (announcements missed while down). @defaultValue 60000 */
  sweepIntervalMs: Type.Optional(Type.Integer({ minimum: 1_000, maximum: 3_600_000 })),
  providers: Type.Array(Type.Object({
    name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$' }),
    type: Type.Union([Type.Literal('webhook'), Type.Literal('slack'), Type.Literal('teams')]),
    /** The receiver's URL; a credential (Slack's and Teams' URLs are the secret). */
    address: CredentialInput,
    /** webhook: the key of the X-Signature HMAC-SHA256 header. */
    hmacKey: Type.Optional(CredentialInput),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
    rateLimit: Type.Optional(Type.Object({
      max: Type.Integer({ minimum: 1, maximum: 10_000 }),
      perMs: Type.Integer({ minimum: 100, maximum: 3_600_000 }),
    }, { additionalProperties: false })),
    retry: Type.Optional(Type.Object({
      attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
      baseMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 600_000 })),
    }, { additionalProperties: false })),
  }, { additionalProperties: false }), { maxItems: 50 }),
  alerts: Type.Array(Type.Object({
    name: Type.String({ minLength: 1, maxLength: 63 }),
    providers: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    /** info: every event; error: errors only. @defaultValue info */
    severity: Type.Optional(Type.Union([Type.Literal('info'), Type.Literal('error')])),
    sources: Type.Optional(NameList),
    clusters: Type.Optional(NameList),
    kinds: Type.Optional(NameList),
    namespaces: Type.Optional(NameList),
    events: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    exclusions: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500 }))),
    summary: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
  }, { additionalProperties: false }), { maxItems: 200 }),
}, { additionalProperties: false });

/** NotificationsConfig is the resolved section: credentials read, names and patterns checked. */
export interface NotificationsConfig {
  readonly providers: readonly NotificationProviderConfig[];
  readonly alerts: readonly NotificationAlert[];
  readonly pollIntervalMs: number;
  readonly sweepIntervalMs: number;
}

/** NotificationsContext is what the section is resolved against. */
export interface NotificationsContext {
  /** Reads a credential from the environment or a file; its error names the field, never the value. */
  readSecret: (ref: SecretReadInput, field: string) => string;
  /** The registered clusters, the first being a Secret reference's default. */
  clusters: readonly string[];
  /** The error for a mistake in a field of the config file (a ConfigError naming file and field). */
  invalid: (field: string, message: string) => Error;
}

/** notificationsConfig resolves the section; without one, nothing is watched or sent. */
export function notificationsConfig(input: Static<typeof NotificationsInput> | undefined, context: NotificationsContext): NotificationsConfig {
  const providers = (input?.providers ?? []).map((provider, index) => providerConfig(provider, `notifications.providers[${index}]`, context));
  const names = new Set<string>();
  providers.forEach((provider, index) => {
    if (names.has(provider.name)) throw context.invalid(`notifications.providers[${index}].name`, `"${provider.name}" names two providers`);
    names.add(provider.name);
  });
  return {
    providers,
    alerts: (input?.alerts ?? []).map((alert, index) => alertConfig(alert, `notifications.alerts[${index}]`, names, context)),
    pollIntervalMs: input?.pollIntervalMs ?? 5_000,
    sweepIntervalMs: input?.sweepIntervalMs ?? 60_000,
  };
}

type ProviderInput = Static<typeof NotificationsInput>['providers'][number];

function providerConfig(input: ProviderInput, where: string, context: NotificationsContext): NotificationProviderConfig {
  const address = credentialConfig(input.address, `${where}.address`, context);
  // The value is a credential: the message says what is wrong with it, never what it is. A
  // Secret's value is checked the same way when it is read.
  const problem = address instanceof SecretText ? addressProblem(address.reveal()) : undefined;
  if (problem) throw context.invalid(`${where}.address`, `${problem} (the value is not shown)`);
  if (input.type === 'webhook' && !input.hmacKey) throw context.invalid(`${where}.hmacKey`, 'a webhook provider needs an HMAC key ({env}, {file} or {secretRef}): receivers check the X-Signature header with it');
  if (input.type !== 'webhook' && input.hmacKey) throw context.invalid(`${where}.hmacKey`, `a ${input.type} provider is not signed; remove hmacKey`);
  return {
    name: input.name,
    type: input.type,
    address,
    ...(input.hmacKey ? { hmacKey: credentialConfig(input.hmacKey, `${where}.hmacKey`, context) } : {}),
    ...deliveryLimits(input),
  };
}

function credentialConfig(input: CredentialInput, field: string, context: NotificationsContext): SecretText | { secretRef: SecretKeyRef } {
  if (!('secretRef' in input)) return new SecretText(context.readSecret(input, field));
  const cluster = input.secretRef.cluster ?? context.clusters[0] ?? '';
  if (!context.clusters.includes(cluster)) throw context.invalid(`${field}.secretRef.cluster`, `no cluster is named "${cluster}"`);
  return { secretRef: { ...input.secretRef, cluster } };
}

/** deliveryLimits fills the documented defaults: 5 s per request, 30 per minute, 8 attempts from 1 s doubling. */
function deliveryLimits(input: ProviderInput): Pick<NotificationProvider, 'timeoutMs' | 'rateLimit' | 'retry'> {
  return {
    timeoutMs: input.timeoutMs ?? 5_000,
    rateLimit: { max: input.rateLimit?.max ?? 30, durationMs: input.rateLimit?.perMs ?? 60_000 },
    retry: { attempts: input.retry?.attempts ?? 8, baseMs: input.retry?.baseMs ?? 1_000 },
  };
}

type AlertInput = Static<typeof NotificationsInput>['alerts'][number];

function alertConfig(input: AlertInput, where: string, providers: ReadonlySet<string>, context: NotificationsContext): NotificationAlert {
  input.providers.forEach((provider, index) => {
    if (!providers.has(provider)) throw context.invalid(`${where}.providers[${index}]`, `no provider is named "${provider}"`);
  });
  const events = input.events?.map((event, index) => {
    if (!(notificationReasons as readonly string[]).includes(event)) throw context.invalid(`${where}.events[${index}]`, `"${event}" is not one of ${notificationReasons.join(', ')}`);
    return event as NotificationReason;
  });
  const exclusions = input.exclusions?.map((pattern, index) => {
    try {
      return new RegExp(pattern);
    } catch (error) {
      throw context.invalid(`${where}.exclusions[${index}]`, `is not a regular expression: ${(error as Error).message}`);
    }
  });
  return {
    name: input.name,
    providers: input.providers,
    severity: input.severity ?? 'info',
    ...(input.sources ? { sources: input.sources } : {}),
    ...(input.clusters ? { clusters: input.clusters } : {}),
    ...(input.kinds ? { kinds: input.kinds } : {}),
    ...(input.namespaces ? { namespaces: input.namespaces } : {}),
    ...(events ? { events } : {}),
    ...(exclusions ? { exclusions } : {}),
    ...(input.summary ? { summary: input.summary } : {}),
  };
}
