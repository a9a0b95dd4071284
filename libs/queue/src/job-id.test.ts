import { describe, expect, it } from 'vitest';
import { formatJobId, objectKeyOfJobId } from './job-id';

describe('formatJobId', () => {
  it('puts the object key first and a unique suffix after @', () => {
    expect(formatJobId('apps/Deployment/web/api', 'abc')).toBe('apps/Deployment/web/api@abc');
  });

  it('escapes the colons BullMQ refuses in custom ids, and % so the escape reverses', () => {
    const key = 'rbac.authorization.k8s.io/ClusterRole/_/system:controller:50%';
    const id = formatJobId(key, 'x');
    expect(id).not.toContain(':');
    expect(objectKeyOfJobId(id)).toBe(key);
  });

  it('round-trips keys that contain @ themselves', () => {
    expect(objectKeyOfJobId(formatJobId('core/ConfigMap/ns/a@b'))).toBe('core/ConfigMap/ns/a@b');
  });

  it('gives different ids to two jobs for one object', () => {
    expect(formatJobId('core/Secret/ns/a')).not.toBe(formatJobId('core/Secret/ns/a'));
  });

  it('returns undefined for ids it did not make', () => {
    expect(objectKeyOfJobId('42')).toBeUndefined();
    expect(objectKeyOfJobId('@x')).toBeUndefined();
  });
});
