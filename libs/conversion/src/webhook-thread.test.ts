import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { isMainThread } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRotationPolicy, rotateCertificates } from './certificate-rotation';
import { conversionPath } from './conversion-webhook';
import { ConversionWebhookThread } from './webhook-thread';

const threads: ConversionWebhookThread[] = [];
afterEach(async () => Promise.all(threads.splice(0).map((thread) => thread.stop())), 30_000);

/** convert posts one ConversionReview over real HTTPS, trusting `ca` as an API server does, and returns the status, the body and the certificate served. */
function convert(port: number, ca: string, objectApiVersion: string): Promise<{ status: number; body: string; certificate: string }> {
  const review = JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview',
    request: { uid: 'r1', desiredAPIVersion: 'tidemark.dev/v1beta1', objects: [{ apiVersion: objectApiVersion, kind: 'WebApp', metadata: { name: 'a', namespace: 'shop', uid: 'u1' }, spec: { image: 'web:1.2' } }] },
  });
  return new Promise((resolve, reject) => {
    const call = request({ host: '127.0.0.1', port, path: conversionPath, method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } }, (response) => {
      let body = '';
      const certificate = (response.socket as TLSSocket).getPeerCertificate().fingerprint256;
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, certificate }));
    });
    call.on('error', reject);
    call.end(review);
  });
}

describe('ConversionWebhookThread', () => {
  it('converts reviews in a worker thread, loads new certificates there, and reports failures back', async () => {
    const failures: string[] = [];
    const thread = new ConversionWebhookThread({ host: '127.0.0.1', port: 0, certificateHosts: ['127.0.0.1'], onFailure: (message) => failures.push(message) });
    threads.push(thread);
    const first = await rotateCertificates(undefined, ['127.0.0.1'], new Date(), defaultRotationPolicy);
    const port = await thread.start(first.state);
    const ca = () => Buffer.from(thread.caBundle(), 'base64').toString();
    const answer = await convert(port, ca(), 'tidemark.dev/v1alpha1');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ response: { uid: 'r1', result: { status: 'Success' }, convertedObjects: [{ apiVersion: 'tidemark.dev/v1beta1', spec: { image: { repository: 'web', tag: '1.2' } } }] } });
    // The server runs off this thread: this test's own thread holds no listening socket for it.
    expect(isMainThread).toBe(true);

    const renewed = await rotateCertificates(first.state, ['127.0.0.1'], new Date(), defaultRotationPolicy, 'serving');
    thread.useCertificates(renewed.state);
    let served = answer.certificate;
    for (let attempt = 0; attempt < 50 && served === answer.certificate; attempt += 1) {
      served = (await convert(port, ca(), 'tidemark.dev/v1alpha1')).certificate;
    }
    expect(served).not.toBe(answer.certificate);

    const failed = await convert(port, ca(), 'tidemark.dev/v9');
    expect(JSON.parse(failed.body)).toMatchObject({ response: { result: { status: 'Failure' } } });
    for (let attempt = 0; attempt < 50 && failures.length === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(failures.join('\n')).toContain('WebApp shop/a (tidemark.dev/v9)');

    await thread.stop();
    await expect(convert(port, ca(), 'tidemark.dev/v1alpha1')).rejects.toThrow(/ECONNREFUSED/);
    // A thread loads its modules anew (under vitest, through tsx), which takes seconds on a loaded machine.
  }, 60_000);

  it('refuses to start without a certificate host', () => {
    expect(() => new ConversionWebhookThread({ certificateHosts: [] })).toThrow(/at least one certificate host/);
  });
});
