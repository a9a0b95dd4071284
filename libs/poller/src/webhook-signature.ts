import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** WebhookProvider says which signature scheme a source's webhook uses. */
export type WebhookProvider = 'github' | 'gitea' | 'gogs' | 'gitlab' | 'generic';

export const webhookProviders: readonly WebhookProvider[] = ['github', 'gitea', 'gogs', 'gitlab', 'generic'];

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** WebhookVerdict is the outcome of checking one delivery: a push, a ping, or a refusal with its status. */
export type WebhookVerdict =
  | { accepted: true; event: 'push' | 'ping' | 'pull-request' }
  | { accepted: false; status: 400 | 401; code: string; reason: string };

interface Scheme {
  /** Header with an HMAC-SHA256 of the raw body, and the prefix before its hex digest. */
  signature?: { header: string; prefix: string };
  /** Header that carries the shared secret itself (GitLab). */
  token?: string;
  event?: { header: string; push: readonly string[]; ping?: readonly string[]; pullRequest?: readonly string[] };
}

const schemes: Record<WebhookProvider, Scheme> = {
  github: { signature: { header: 'x-hub-signature-256', prefix: 'sha256=' }, event: { header: 'x-github-event', push: ['push'], ping: ['ping'], pullRequest: ['pull_request'] } },
  gitea: { signature: { header: 'x-gitea-signature', prefix: '' }, event: { header: 'x-gitea-event', push: ['push'], pullRequest: ['pull_request'] } },
  gogs: { signature: { header: 'x-gogs-signature', prefix: '' }, event: { header: 'x-gogs-event', push: ['push'], pullRequest: ['pull_request'] } },
  gitlab: { token: 'x-gitlab-token', event: { header: 'x-gitlab-event', push: ['Push Hook', 'Tag Push Hook'], pullRequest: ['Merge Request Hook'] } },
  generic: { signature: { header: 'x-tidemark-signature', prefix: 'sha256=' } },
};

const refuse = (status: 400 | 401, code: string, reason: string): WebhookVerdict => ({ accepted: false, status, code, reason });

/**
 * verifyWebhook checks a delivery against the source's secret: the signature first (so an
 * unauthenticated caller learns nothing else), then the event type. Comparisons are constant
 * time; SHA-1 signatures are refused because SHA-1 HMACs are no longer an acceptable choice.
 */
export function verifyWebhook(provider: WebhookProvider, secret: string, headers: Headers, body: Buffer): WebhookVerdict {
  const scheme = schemes[provider];
  const authenticated = scheme.token ? checkToken(headers, scheme.token, secret) : checkSignature(headers, scheme, secret, body);
  if (authenticated) return authenticated;
  if (!scheme.event) return { accepted: true, event: 'push' };
  const event = header(headers, scheme.event.header) ?? '';
  if (scheme.event.push.includes(event)) return { accepted: true, event: 'push' };
  if (scheme.event.ping?.includes(event)) return { accepted: true, event: 'ping' };
  if (scheme.event.pullRequest?.includes(event)) return { accepted: true, event: 'pull-request' };
  return refuse(400, 'WebhookNotAPush', `event "${event.slice(0, 40)}" is not a push or a pull request`);
}

function checkSignature(headers: Headers, scheme: Scheme, secret: string, body: Buffer): WebhookVerdict | undefined {
  const { header: name, prefix } = scheme.signature!;
  const given = header(headers, name);
  if (given === undefined) {
    if (header(headers, 'x-hub-signature') !== undefined) {
      return refuse(401, 'WebhookSha1Refused', 'SHA-1 signatures (X-Hub-Signature) are refused; send a SHA-256 signature');
    }
    return refuse(401, 'WebhookSignatureMissing', `the ${name} header is missing`);
  }
  const hex = given.startsWith(prefix) ? given.slice(prefix.length) : '';
  if (!/^[0-9a-f]{64}$/i.test(hex)) return refuse(401, 'WebhookSignatureMalformed', `the ${name} header is not ${prefix}<64 hex digits>`);
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex')) ? undefined : refuse(401, 'WebhookSignatureInvalid', 'the signature does not match the body');
}

function checkToken(headers: Headers, name: string, secret: string): WebhookVerdict | undefined {
  const given = header(headers, name);
  if (given === undefined) return refuse(401, 'WebhookSignatureMissing', `the ${name} header is missing`);
  // Hash both sides so the comparison is constant time whatever the lengths.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(secret)) ? undefined : refuse(401, 'WebhookSignatureInvalid', 'the token does not match');
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
