import { Agent, request } from 'node:https';
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

/** HeldReview is a POST whose headers went out and whose body waits until `finish`. */
interface HeldReview {
  response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
  finish(body: string): void;
}

function holdReview(port: number, ca: string, contentLength: number): HeldReview {
  let call: ReturnType<typeof request> | undefined;
  const response = new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    call = request({ host: '127.0.0.1', port, path: conversionPath, method: 'POST', ca, headers: { 'content-type': 'application/json', 'content-length': String(contentLength) } }, (answer) => {
      let body = '';
      answer.on('data', (chunk: Buffer) => (body += chunk.toString()));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
    });
    call.on('error', reject);
    call.flushHeaders();
  });
  return { response, finish: (body) => call?.end(body) };
}

async function startWebhook(options: Partial<ConstructorParameters<typeof ConversionWebhook>[0]> = {}): Promise<{ port: number; ca: string }> {
  const webhook = new ConversionWebhook({ kinds: createDefaultRegistry(), host: '127.0.0.1', port: 0, certificateHosts: ['127.0.0.1'], ...options });
  webhooks.push(webhook);
  const port = await webhook.start();
  return { port, ca: Buffer.from(webhook.caBundle(), 'base64').toString() };
}

describe('ConversionWebhook bounds', () => {
  it('answers 413 to a review larger than a few MiB before reading its body', async () => {
    const { port, ca } = await startWebhook();
    const held = holdReview(port, ca, 4 * 1024 * 1024);
    const answer = await Promise.race([held.response, new Promise<'unanswered'>((resolve) => setTimeout(() => resolve('unanswered'), 2_000))]);
    if (answer === 'unanswered') held.finish(' '.repeat(4 * 1024 * 1024));
    expect(answer).toMatchObject({ status: 413, body: expect.stringContaining('larger than 3145728 bytes') });
  });

  it('answers 429 with Retry-After beyond its concurrency, and serves again once a slot is free', async () => {
    const { port, ca } = await startWebhook({ maxConcurrentReviews: 2 });
    const review = JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'r1', desiredAPIVersion: 'tidemark.dev/v1beta1', objects: [] } });
    const held = [holdReview(port, ca, review.length), holdReview(port, ca, review.length)];
    // Both held reviews are being read before the third arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = await postReview(port, ca);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('1');
    for (const waiting of held) waiting.finish(review);
    expect((await Promise.all(held.map((review) => review.response))).map((answer) => answer.status)).toEqual([200, 200]);
    expect((await postReview(port, ca)).status).toBe(200);
  });

  it('gives a review requestTimeoutMs to arrive whole (408), while an idle kept-alive connection stays usable', async () => {
    const { port, ca } = await startWebhook({ requestTimeoutMs: 1_000 });
    const started = Date.now();
    const slow = await holdReview(port, ca, 100).response;
    expect(slow.status).toBe(408);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Idle longer than the request timeout between two reviews on one connection: the second reuses it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
    const review = JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'r1', desiredAPIVersion: 'tidemark.dev/v1beta1', objects: [] } });
    const post = () => new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const call = request({ host: '127.0.0.1', port, path: conversionPath, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (answer) => {
        answer.resume();
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, reused: call.reusedSocket }));
      });
      call.on('error', reject);
      call.end(review);
    });
    try {
      expect(await post()).toEqual({ status: 200, reused: false });
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await post()).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }, 15_000);

  it('refuses a bound that is not a positive whole number', () => {
    expect(() => new ConversionWebhook({ kinds: createDefaultRegistry(), certificateHosts: ['127.0.0.1'], maxConcurrentReviews: 0 })).toThrow(/maxConcurrentReviews must be a positive whole number/);
  });
});
