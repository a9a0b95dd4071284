import { describe, expect, it } from 'vitest';
import { isReadOnlyKey } from './read-only-kind';

describe('isReadOnlyKey', () => {
  it('tells Placement and HealthRule keys, in any namespace, from the objects to apply', () => {
    expect(isReadOnlyKey('tidemark.dev/Placement/_/teams')).toBe(true);
    expect(isReadOnlyKey('tidemark.dev/HealthRule/ops/db')).toBe(true);
    expect(isReadOnlyKey('tidemark.dev/WebApp/shop/api')).toBe(false);
    expect(isReadOnlyKey('core/ConfigMap/app/settings')).toBe(false);
    expect(isReadOnlyKey('example.com/Placement/app/x')).toBe(false);
  });
});
