import { describe, expect, it } from 'vitest';
import type { ManifestEntry } from './load-manifest-file';
import { renderWarningsOf } from './unit-warnings';

const entry = (manifest: Record<string, unknown>): ManifestEntry => ({ manifest: manifest as ManifestEntry['manifest'], objectKey: `core/${String(manifest.kind)}/shop/x`, fingerprint: 'f', line: 0 });

describe('renderWarningsOf', () => {
  it('makes warnings RenderWarnings, once each, without the values of the Secrets the unit rendered', () => {
    const secret = entry({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, data: { password: Buffer.from('pa55-word-9').toString('base64') }, stringData: { token: 'tok-en-77' } });
    const configMap = entry({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { mode: 'fast' } });
    const found = renderWarningsOf('helm', ['value pa55-word-9 was ignored', 'tok-en-77 and fast', 'tok-en-77 and fast'], [secret, configMap]);
    expect(found).toEqual({ warnings: [
      { code: 'RenderWarning', reason: 'helm warned: value [redacted] was ignored' },
      { code: 'RenderWarning', reason: 'helm warned: [redacted] and fast' },
    ] });
  });

  it('adds nothing to a unit whose render said nothing', () => {
    expect(renderWarningsOf('helm', [], [])).toEqual({});
  });
});
