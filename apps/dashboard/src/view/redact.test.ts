import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { isSensitivePath, redactHistory, redactStatus, redactValue } from './redact';

const base: ObjectStatus = {
  cluster: 'c', objectKey: 'core/ConfigMap/ns/a', source: 's', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a',
  conditions: [], inventory: [], updatedAt: '2026-01-01T00:00:00Z',
};
const drift = (path: string, desired: unknown, live: unknown) => ({ path, desired, live, manager: 'kubectl', detectedAt: base.updatedAt });

describe('redaction', () => {
  it('hides values under data-like fields at any depth', () => {
    expect(redactValue({ a: 1, data: { k: 'v' }, list: [{ password: 'p', ok: true }], nested: { stringData: 'x', token: 't' } }))
      .toEqual({ a: 1, data: '(redacted)', list: [{ password: '(redacted)', ok: true }], nested: { stringData: '(redacted)', token: '(redacted)' } });
  });

  it('recognises sensitive JSON pointers', () => {
    expect(isSensitivePath('/data/password')).toBe(true);
    expect(isSensitivePath('/spec/template/spec/containers/0/env/0/value')).toBe(false);
    expect(isSensitivePath('/stringData')).toBe(true);
  });

  it('redacts drift on data paths, drift values holding data, all drift of a Secret, and kind status', () => {
    const status = redactStatus({
      ...base, kind: 'Deployment',
      kindStatus: { hash: 'h', data: { x: 'secret' } },
      drift: [drift('/data/key', 'a', 'b'), drift('/spec', { data: 'hidden', replicas: 2 }, { replicas: 3 }), drift('/spec/replicas', 2, 3)],
    });
    expect(status.kindStatus).toEqual({ hash: 'h', data: '(redacted)' });
    expect(status.drift?.map((item) => [item.desired, item.live])).toEqual([['(redacted)', '(redacted)'], [{ data: '(redacted)', replicas: 2 }, { replicas: 3 }], [2, 3]]);
    const secret = redactStatus({ ...base, kind: 'Secret', drift: [drift('/metadata/labels/x', 'a', 'b')] });
    expect(secret.drift?.[0]).toMatchObject({ desired: '(redacted)', live: '(redacted)' });
  });

  it('shows ConfigMap data (its own or a WebApp\'s), but never a Secret\'s, nor keys named like credentials', () => {
    const own = redactStatus({ ...base, drift: [drift('/data/greeting', 'hello', 'bye'), drift('/data/password', 'p1', 'p2'), drift('/data', { a: '1', token: 't' }, { a: '2' })] });
    expect(own.drift?.map((item) => [item.desired, item.live])).toEqual([['hello', 'bye'], ['(redacted)', '(redacted)'], [{ a: '1', token: '(redacted)' }, { a: '2' }]]);
    const owned = redactStatus({
      ...base, kind: 'WebApp',
      drift: [{ ...drift('/data/app.conf', 'x=1', 'x=2'), object: 'ConfigMap shop/web-config' }, { ...drift('/data/key', 'a', 'b'), object: 'Secret shop/web-tls' }],
    });
    expect(owned.drift?.map((item) => [item.desired, item.live])).toEqual([['x=1', 'x=2'], ['(redacted)', '(redacted)']]);
  });

  it('hides what the logs hide: every spelling of a credential key, and credentials quoted in text', () => {
    const canary = 'canary-9f8e7d6c5b4a';
    const status = redactStatus({
      ...base, kind: 'Deployment',
      conditions: [{ type: 'Ready', status: 'False', reason: 'FetchFailed', message: `fetch https://u:${canary}@git.example/a.git failed`, observedGeneration: 1, lastTransitionTime: base.updatedAt }],
      kindStatus: { env: { DB_PASSWORD: canary, client_secret: canary, 'X-Auth-Token': canary, kubeconfig: canary, cookie: canary }, note: `see ?token=${canary}` },
      drift: [drift('/spec/template/metadata/annotations/kubeconfig', canary, 'b'), drift('/spec', { cookie: canary, replicas: 2 }, { replicas: 3 })],
      failure: { category: 'transient', code: 'FetchFailed', detail: `Authorization: Bearer ${canary}` },
      warnings: [`https://${canary}@github.com/o/r.git`],
    });
    expect(JSON.stringify(status)).not.toContain(canary);
    expect(status.kindStatus).toEqual({ env: { DB_PASSWORD: '(redacted)', client_secret: '(redacted)', 'X-Auth-Token': '(redacted)', kubeconfig: '(redacted)', cookie: '(redacted)' }, note: 'see ?token=(redacted)' });
    expect(status.conditions[0]?.message).toBe('fetch https://***@git.example/a.git failed');
    const history = redactHistory([{ revision: 'a', startedAt: base.updatedAt, durationMs: 1, result: 'failed', message: `GET ?access_token=${canary}` }, { revision: 'b', startedAt: base.updatedAt, durationMs: 1, result: 'succeeded' }]);
    expect(history.map((run) => run.message)).toEqual(['GET ?access_token=(redacted)', undefined]);
  });
});
