import { describe, expect, it } from 'vitest';
import { safeNext } from './login-routes';

describe('safeNext', () => {
  it('keeps local paths and sends anything else to the overview', () => {
    expect(safeNext('/objects?kind=WebApp')).toBe('/objects?kind=WebApp');
    for (const next of [undefined, '', 'https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)']) expect(safeNext(next)).toBe('/');
  });

  it('resolves next the way a browser does: tabs, newlines, backslashes and dot segments cannot reach another host', () => {
    for (const next of ['/\t/evil.example', '/\n/evil.example', '/\r\n/evil.example', '/\\/evil.example', '/\t\\evil.example', '/.//evil.example', '/%2e//evil.example', ' //evil.example']) {
      const target = safeNext(next);
      expect(new URL(target, 'https://dash.example').host, JSON.stringify(next)).toBe('dash.example');
    }
  });

  it('returns the parser\'s serialisation of a local path', () => {
    expect(safeNext('/objects/shared/apps/Deployment/team a/web?x=1#top')).toBe('/objects/shared/apps/Deployment/team%20a/web?x=1#top');
  });
});
