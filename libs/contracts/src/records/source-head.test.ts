import { describe, expect, it } from 'vitest';
import { parseSourceHead, sourceHeadMessage } from './source-head';

const revision = 'a'.repeat(40);

describe('parseSourceHead', () => {
  it('reads what sourceHeadMessage writes, with or without a revision', () => {
    expect(parseSourceHead(sourceHeadMessage({ source: 'apps', revision }))).toEqual({ source: 'apps', revision });
    expect(parseSourceHead(sourceHeadMessage({ source: 'apps' }))).toEqual({ source: 'apps' });
  });

  it('drops a hostile message whole: oversized, not JSON, no source, a revision that is no commit id, extra keys', () => {
    expect(parseSourceHead(sourceHeadMessage({ source: 'a'.repeat(2000) }))).toBeUndefined();
    expect(parseSourceHead(JSON.stringify({ source: 'apps', padding: 'x'.repeat(2000) }))).toBeUndefined();
    expect(parseSourceHead('{"source": "apps"')).toBeUndefined();
    expect(parseSourceHead(JSON.stringify({ revision }))).toBeUndefined();
    expect(parseSourceHead(JSON.stringify({ source: 'apps', revision: 'HEAD~1' }))).toBeUndefined();
    expect(parseSourceHead(JSON.stringify({ source: 'apps', revision: revision.toUpperCase() }))).toBeUndefined();
    expect(parseSourceHead(JSON.stringify({ source: 'apps', revision: 7 }))).toBeUndefined();
    expect(parseSourceHead(JSON.stringify(['apps']))).toBeUndefined();
    expect(parseSourceHead(JSON.stringify({ source: 'apps', __proto__: { revision } }))).toEqual({ source: 'apps' });
  });
});
