import { request } from 'node:https';
import { createDefaultRegistry } from '@tidemark/kinds';
import { afterEach, describe, expect, it } from 'vitest';
import { ConversionWebhook, conversionPath } from './conversion-webhook';

const webhooks: ConversionWebhook[] = [];
afterEach(async () => Promise.all(webhooks.splice(0).map((webhook) => webhook.stop())));

/** postReview sends one ConversionReview over real HTTPS, trusting the webhook's CA as an API server does. */
function postReview(port: number, ca: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const review = JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview',
    request: { uid: 'r1', desiredAPIVersion: 'tidemark.dev/v1beta1', objects: [{ apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'a', namespace: 'shop', uid: 'u1' }, spec: { image: 'web:1' } }] },
  });
  return new Promise((resolve, reject) => {
    const call = request({ host: '127.0.0.1', port, path: conversionPath, method: 'POST', ca, headers: { 'content-type': 'application/json', connection: 'keep-alive' } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    call.on('error', reject);
    call.end(review);
  });
}

describe('ConversionWebhook', () => {
  it('keeps idle connections longer than the API server does (Go: 90 s), so a reused connection is never closed under a review', async () => {
    const webhook = new ConversionWebhook({ kinds: createDefaultRegistry(), host: '127.0.0.1', port: 0, certificateHosts: ['127.0.0.1'] });
    webhooks.push(webhook);
    const port = await webhook.start();
    const answer = await postReview(port, Buffer.from(webhook.caBundle(), 'base64').toString());
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ response: { uid: 'r1', result: { status: 'Success' } } });
    // Node announces its keep-alive timeout; Node's default (5 s) lets it close first and the API server's POST fails with EOF.
    const timeout = Number(/timeout=(\d+)/.exec(String(answer.headers['keep-alive']))?.[1]);
    expect(timeout).toBeGreaterThan(90);
  });
});
