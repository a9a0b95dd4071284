import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, type Headers } from './webhook-signature';

const secret = 'a-long-webhook-secret';
const body = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', after: 'f'.repeat(40) }));
const hmac = (payload: Buffer, key = secret, algorithm = 'sha256') => createHmac(algorithm, key).update(payload).digest('hex');

describe('verifyWebhook', () => {
  it.each([
    ['github', { 'x-hub-signature-256': `sha256=${hmac(body)}`, 'x-github-event': 'push' }],
    ['gitea', { 'x-gitea-signature': hmac(body), 'x-gitea-event': 'push' }],
    ['gogs', { 'x-gogs-signature': hmac(body), 'x-gogs-event': 'push' }],
    ['gitlab', { 'x-gitlab-token': secret, 'x-gitlab-event': 'Push Hook' }],
    ['generic', { 'x-tidemark-signature': `sha256=${hmac(body)}` }],
  ] as const)('accepts a valid %s push', (provider, headers) => {
    expect(verifyWebhook(provider, secret, headers, body)).toEqual({ accepted: true, event: 'push' });
  });

  it('refuses a mutated body, a mutated signature and a missing signature with 401', () => {
    const headers = { 'x-hub-signature-256': `sha256=${hmac(body)}`, 'x-github-event': 'push' };
    const mutatedBody = Buffer.from(body.toString().replace('main', 'mair'));
    expect(verifyWebhook('github', secret, headers, mutatedBody)).toMatchObject({ accepted: false, status: 401, code: 'WebhookSignatureInvalid' });
    const signature = hmac(body);
    const flipped = `sha256=${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expect(verifyWebhook('github', secret, { ...headers, 'x-hub-signature-256': flipped }, body)).toMatchObject({ status: 401, code: 'WebhookSignatureInvalid' });
    expect(verifyWebhook('github', secret, { 'x-github-event': 'push' }, body)).toMatchObject({ status: 401, code: 'WebhookSignatureMissing' });
    expect(verifyWebhook('github', 'another-secret-entirely', headers, body)).toMatchObject({ status: 401 });
  });

  it('refuses a SHA-1-only signature even when it is correct', () => {
    const headers = { 'x-hub-signature': `sha1=${hmac(body, secret, 'sha1')}`, 'x-github-event': 'push' };
    expect(verifyWebhook('github', secret, headers, body)).toMatchObject({ accepted: false, status: 401, code: 'WebhookSha1Refused' });
  });

  it('refuses malformed signatures and wrong GitLab tokens', () => {
    expect(verifyWebhook('github', secret, { 'x-hub-signature-256': hmac(body), 'x-github-event': 'push' }, body)).toMatchObject({ code: 'WebhookSignatureMalformed' });
    expect(verifyWebhook('gitea', secret, { 'x-gitea-signature': 'zz', 'x-gitea-event': 'push' }, body)).toMatchObject({ code: 'WebhookSignatureMalformed' });
    expect(verifyWebhook('gitlab', secret, { 'x-gitlab-token': `${secret}x`, 'x-gitlab-event': 'Push Hook' }, body)).toMatchObject({ status: 401 });
    expect(verifyWebhook('gitlab', secret, { 'x-gitlab-event': 'Push Hook' }, body)).toMatchObject({ status: 401, code: 'WebhookSignatureMissing' });
  });

  it('answers a verified non-push event with 400, and checks the signature before the event', () => {
    const headers: Headers = { 'x-hub-signature-256': `sha256=${hmac(body)}`, 'x-github-event': 'issues' };
    expect(verifyWebhook('github', secret, headers, body)).toMatchObject({ accepted: false, status: 400, code: 'WebhookNotAPush' });
    expect(verifyWebhook('github', secret, { ...headers, 'x-github-event': 'ping' }, body)).toEqual({ accepted: true, event: 'ping' });
    expect(verifyWebhook('github', secret, { 'x-github-event': 'issues' }, body)).toMatchObject({ status: 401 });
  });
});
