import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { isSensitivePath, redactStatus, redactValue } from './redact';

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
      ...base,
      kindStatus: { hash: 'h', data: { x: 'secret' } },
      drift: [drift('/data/key', 'a', 'b'), drift('/spec', { data: 'hidden', replicas: 2 }, { replicas: 3 }), drift('/spec/replicas', 2, 3)],
    });
    expect(status.kindStatus).toEqual({ hash: 'h', data: '(redacted)' });
    expect(status.drift?.map((item) => [item.desired, item.live])).toEqual([['(redacted)', '(redacted)'], [{ data: '(redacted)', replicas: 2 }, { replicas: 3 }], [2, 3]]);
    const secret = redactStatus({ ...base, kind: 'Secret', drift: [drift('/metadata/labels/x', 'a', 'b')] });
    expect(secret.drift?.[0]).toMatchObject({ desired: '(redacted)', live: '(redacted)' });
  });
});
