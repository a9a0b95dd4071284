import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString()); done(); } });
  return { lines, stream };
}

const canary = 'canary-9f8e7d6c5b4a';

describe('createLogger', () => {
  it('redacts credentials and Secret data at any of three levels, and credentials quoted in text', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream);
    log.info({ password: canary, source: { auth: { username: 'u', password: canary } }, object: { kind: 'Secret', data: { key: canary } }, request: { headers: { authorization: `Bearer ${canary}` } } }, 'structured');
    log.warn({ err: `fetch https://user:${canary}@git.example/repo failed` }, `GET with Bearer ${canary}`);
    expect(lines).toHaveLength(2);
    expect(lines.join('')).not.toContain(canary);
    expect(lines[0]).toContain('[redacted]');
    expect(lines[1]).toContain('https://***@git.example/repo');
  });

  it('keeps ordinary fields, so the check above can see a canary when one leaks', () => {
    const { lines, stream } = capture();
    createLogger('info', stream).info({ objectKey: canary }, 'plain');
    expect(lines.join('')).toContain(canary);
  });
});

describe('redaction at depth', () => {
  it('finds canaries nested deep, under any spelling of a secret key, and inside error messages', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream);
    const deep = { a: { b: { c: { d: { e: { PASSWORD: canary, apiKey: canary, clientSecret: canary, 'x-auth-token': canary, client_secret: canary } } } } } };
    const error = Object.assign(new Error(`GET https://git.example/r.git?access_token=${canary} failed: Authorization: Bearer ${canary}`), { config: { headers: { Authorization: canary } }, token: canary });
    const caused = new Error('outer', { cause: new Error(`inner https://u:${canary}@h/x`) });
    log.info({ deep, list: [{ Secret: canary }, [`token=${canary}`]] }, 'nested');
    log.error({ err: error, other: caused, redis: `redis://:${canary}@redis:6379` }, `see ${`https://h/x?token=${canary}`}`);
    expect(lines).toHaveLength(2);
    expect(lines.join('')).not.toContain(canary);
    expect(lines[1]).toContain('failed');
  });

  it('survives cycles', () => {
    const { lines, stream } = capture();
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    createLogger('info', stream).info({ cyclic }, 'cycle');
    expect(lines[0]).toContain('[circular]');
  });
});
