import { describe, expect, it } from 'vitest';
import { safeNext } from './login-routes';

describe('safeNext', () => {
  it('keeps local paths and sends anything else to the overview', () => {
    expect(safeNext('/objects?kind=WebApp')).toBe('/objects?kind=WebApp');
    for (const next of [undefined, '', 'https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)']) expect(safeNext(next)).toBe('/');
  });
});
