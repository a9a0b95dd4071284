import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from './manifest';
import { isRedactedObject, isSecretKey, logTail, redactUrl, redactValue, scrubText, type LogTailOptions } from './redaction';

const canary = 'canary-9f8e7d6c5b4a';

describe('isSecretKey', () => {
  const cases: ReadonlyArray<[string, boolean]> = [
    ['password', true], ['PASSWORD', true], ['DB_PASSWORD', true], ['passwd', true], ['pwd', true], ['pass', true],
    ['client_secret', true], ['clientSecret', true], ['Secret', true], ['X-Auth-Token', true], ['token', true],
    ['apiKey', true], ['api_key', true], ['accessKey', true], ['privateKey', true], ['credentials', true],
    ['Authorization', true], ['cookie', true], ['Set-Cookie', true], ['kubeconfig', true], ['sessionId', true], ['csrf', true],
    ['data', true], ['stringData', true], ['binaryData', true], ['key', true], ['cert', true], ['auth', true],
    ['replicas', false], ['name', false], ['objectKey', false], ['lastConfigMapHash', false], ['greeting', false], ['keys', false], ['database', false],
  ];
  it.each(cases)('%s is secret: %s', (key, secret) => {
    expect(isSecretKey(key)).toBe(secret);
  });
});

describe('scrubText', () => {
  const cases: ReadonlyArray<[string, string]> = [
    [`fetch https://user:${canary}@git.example/repo failed`, 'fetch https://***@git.example/repo failed'],
    [`clone https://${canary}@github.com/o/r.git`, 'clone https://***@github.com/o/r.git'],
    [`redis://:${canary}@redis:6379`, 'redis://***@redis:6379'],
    [`GET https://h/x?access_token=${canary}&page=2`, 'GET https://h/x?access_token=[redacted]&page=2'],
    [`see https://h/x?token=${canary}`, 'see https://h/x?token=[redacted]'],
    [`Authorization: Bearer ${canary}`, 'Authorization: Bearer [redacted]'],
    [`Basic ${canary}`, 'Basic [redacted]'],
    ['Deployment shop/web has 1 of 3 replicas available', 'Deployment shop/web has 1 of 3 replicas available'],
    ['https://registry.example/@scope/pkg', 'https://registry.example/@scope/pkg'],
  ];
  it.each(cases)('%s', (text, scrubbed) => {
    expect(scrubText(text)).toBe(scrubbed);
  });

  it('writes the censor it is given', () => {
    expect(scrubText(`?token=${canary}`, '(redacted)')).toBe('?token=(redacted)');
  });
});

describe('redactUrl', () => {
  const cases: ReadonlyArray<[string, string]> = [
    ['https://bob:hunter2@git.example.com/a.git?token=abc#x', 'https://***@git.example.com/a.git'],
    ['https://git.example.com/a.git', 'https://git.example.com/a.git'],
    ['::', '(invalid URL)'],
  ];
  it.each(cases)('%s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe('redactValue', () => {
  it('hides secret keys at any depth, in any spelling, and scrubs every string', () => {
    const value = {
      a: { b: { c: { d: { PASSWORD: canary, DB_PASSWORD: canary, client_secret: canary, 'X-Auth-Token': canary, kubeconfig: canary, cookie: canary } } } },
      list: [{ Secret: canary, ok: true }, [`token=${canary}`]],
      object: { kind: 'Secret', data: { key: canary } },
      replicas: 3,
    };
    const redacted = redactValue(value);
    expect(JSON.stringify(redacted)).not.toContain(canary);
    expect(redacted).toMatchObject({ a: { b: { c: { d: { PASSWORD: '[redacted]', cookie: '[redacted]' } } } }, list: [{ Secret: '[redacted]', ok: true }, ['token [redacted]']], object: { kind: 'Secret', data: '[redacted]' }, replicas: 3 });
    expect(redactValue({ data: canary }, { censor: '(redacted)' })).toEqual({ data: '(redacted)' });
  });

  it('keeps an error\'s type, message, cause and fields, scrubbed, and drops its request options', () => {
    const error = Object.assign(new Error(`GET https://u:${canary}@h/x failed`, { cause: new Error(`inner token=${canary}`) }), { config: { headers: {} }, token: canary, code: 'E1' });
    const redacted = redactValue(error) as Record<string, unknown>;
    expect(JSON.stringify(redacted)).not.toContain(canary);
    expect(redacted).toMatchObject({ type: 'Error', message: 'GET https://***@h/x failed', token: '[redacted]', code: 'E1' });
    expect(redacted).not.toHaveProperty('config');
  });

  it('survives cycles and bounds depth', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toEqual({ name: 'x', self: '[circular]' });
    let deep: unknown = 'bottom';
    for (let level = 0; level < 20; level += 1) deep = { next: deep };
    expect(JSON.stringify(redactValue(deep))).toContain('[too deep]');
  });
});

describe('isRedactedObject', () => {
  const object = (apiVersion: string, kind: string, annotations?: Record<string, string>): KubernetesManifest => ({ apiVersion, kind, metadata: { name: 'a', ...(annotations ? { annotations } : {}) } });
  const cases: ReadonlyArray<[string, KubernetesManifest, boolean]> = [
    ['a v1 Secret', object('v1', 'Secret'), true],
    ['a ConfigMap', object('v1', 'ConfigMap'), false],
    ['a ConfigMap annotated tidemark.dev/redact: "true"', object('v1', 'ConfigMap', { 'tidemark.dev/redact': 'true' }), true],
    ['a CR annotated tidemark.dev/redact: "false"', object('example.com/v1', 'Database', { 'tidemark.dev/redact': 'false' }), false],
    ['a Secret of another group', object('example.com/v1', 'Secret'), false],
  ];
  it.each(cases)('%s: %s', (_name, manifest, redacted) => {
    expect(isRedactedObject(manifest)).toBe(redacted);
  });
});

describe('logTail', () => {
  const few: LogTailOptions = { lines: 3, lineChars: 40 };
  const cases: ReadonlyArray<[string, string, LogTailOptions, string[]]> = [
    ['keeps the last lines', 'a\nb\nc\nd\ne\n', few, ['c', 'd', 'e']],
    ['reads CRLF line ends', 'a\r\nb\r\n', few, ['a', 'b']],
    ['keeps blank lines unless told', 'a\n\nb', few, ['a', '', 'b']],
    ['skips blank lines when told, counting only the others', 'a\nb\n\n\nc\n\n', { ...few, lines: 2, skipBlank: true }, ['b', 'c']],
    ['cuts a long line, marking the cut', 'x'.repeat(100), few, [`${'x'.repeat(40)}…`]],
    ['removes ANSI colour whole', '\u001b[31mfailed\u001b[0m: exit 1', few, ['failed: exit 1']],
    ['removes control characters, keeping tabs', 'a\u0000b\u0007c\td\u009be\rf', few, ['abc\tdef']],
    ['removes bidirectional overrides', 'user \u202eevil\u202c name', few, ['user evil name']],
    ['scrubs a URL user part', `dial postgres://app:${canary}@db:5432/shop`, { ...few, lineChars: 200 }, ['dial postgres://***@db:5432/shop']],
    ['scrubs a bearer token', `Authorization: Bearer ${canary}`, { ...few, lineChars: 200 }, ['Authorization: Bearer [redacted]']],
    ['scrubs a query credential', `GET /x?token=${canary}&a=1`, { ...few, lineChars: 200 }, ['GET /x?token=[redacted]&a=1']],
    ['a control character cannot hide a URL user part', `postgres://app:${canary}\u0007@db`, { ...few, lineChars: 200 }, ['postgres://***@db']],
    ['an escape cannot swallow the @ of a URL user part', `postgres://app:${canary}@db`.replace('@', '\u001b@'), { ...few, lineChars: 200 }, ['postgres://***@db']],
    ['a control character cannot hide a bearer token', `Bearer\u0000 ${canary}`, { ...few, lineChars: 200 }, ['Bearer [redacted]']],
    ['scrubs before it cuts, so no half credential is left', `${'x'.repeat(20)} https://u:${canary}@h/`, { ...few, lineChars: 40 }, [`${'x'.repeat(20)} https://***@h/`]],
    ['a credential cut mid-way is scrubbed by what follows', `${'x'.repeat(30)} redis://:${canary}@r:6379`, { ...few, lineChars: 40 }, [`${'x'.repeat(30)} redis://*…`]],
    ['says nothing for an empty log', '', few, []],
  ];
  it.each(cases)('%s', (_name, text, options, lines) => {
    expect(logTail(text, options)).toEqual(lines);
  });

  it('is bounded whatever the log', () => {
    const huge = `${'y'.repeat(1_000_000)}\n`.repeat(20);
    const lines = logTail(huge, { lines: 10, lineChars: 200 });
    expect(lines).toHaveLength(10);
    expect(lines.every((line) => line.length === 201)).toBe(true);
  });
});
