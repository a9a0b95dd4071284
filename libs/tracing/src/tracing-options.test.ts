import { describe, expect, it } from 'vitest';
import { checkTracingOptions } from './tracing-options';
import { noSpan, noTracing, inSpan } from './tracer';
import { startTracing } from './start-tracing';

describe('checkTracingOptions', () => {
  it('takes https anywhere and http on loopback only', () => {
    for (const endpoint of ['https://otel.example.com:4318/v1/traces', 'http://127.0.0.1:4318/v1/traces', 'http://localhost:4318/v1/traces', 'http://[::1]:4318/v1/traces']) {
      expect(() => checkTracingOptions({ endpoint })).not.toThrow();
    }
  });

  it.each([
    ['plain http to another host', { endpoint: 'http://otel.example.com:4318/v1/traces' }, /must be https/],
    ['http to a name that only looks like loopback', { endpoint: 'http://127.0.0.1.example.com/v1/traces' }, /must be https/],
    ['another scheme', { endpoint: 'file:///etc/passwd' }, /must be https/],
    ['credentials in the URL', { endpoint: 'https://user:secret-token@otel.example.com/v1/traces' }, /must not carry credentials/],
    ['not a URL', { endpoint: 'otel:4318' }, /must be https|not a URL/],
    ['a ratio above one', { endpoint: 'https://otel.example.com', samplingRatio: 1.5 }, /samplingRatio/],
    ['a ratio that is not a number', { endpoint: 'https://otel.example.com', samplingRatio: Number.NaN }, /samplingRatio/],
    ['a header name with a newline', { endpoint: 'https://otel.example.com', headers: { 'x-key\r\nevil': 'v' } }, /not a header name/],
  ])('refuses %s', (_label, options, message) => {
    expect(() => checkTracingOptions(options)).toThrow(message);
  });

  it('never quotes the credentials it refuses', () => {
    expect(() => checkTracingOptions({ endpoint: 'https://user:secret-token@otel.example.com' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret-token') }));
  });
});

describe('tracing off', () => {
  it('is the tracer that records nothing, and its spans are one shared no-op object', async () => {
    const tracer = await startTracing(undefined);
    expect(tracer).toBe(noTracing);
    expect(tracer.enabled).toBe(false);
    const span = tracer.start('poll', { parent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    expect(span).toBe(noSpan);
    expect(span.child('fetch')).toBe(noSpan);
    expect(span.traceparent).toBeUndefined();
    await expect(inSpan(span, 'apply', {}, async () => 'done')).resolves.toBe('done');
    await expect(inSpan(span, 'apply', {}, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
  });
});
