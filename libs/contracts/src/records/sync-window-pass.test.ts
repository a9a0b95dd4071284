import { describe, expect, it } from 'vitest';
import { parseSyncWindowPass } from './sync-window-pass';

describe('parseSyncWindowPass', () => {
  it('reads a pass', () => {
    expect(parseSyncWindowPass('{"by":"otto","at":"2026-03-31T10:00:00Z"}')).toEqual({ by: 'otto', at: '2026-03-31T10:00:00.000Z' });
  });

  it('opens nothing with a record that is absent, not JSON, the wrong shape or oversized', () => {
    for (const raw of [null, '', 'not json', '[]', 'null', '"otto"', '{"by":1,"at":"2026-03-31T10:00:00Z"}', '{"by":"otto","at":"yesterday"}', '{"by":"otto"}', `{"by":"${'x'.repeat(5000)}","at":"2026-03-31T10:00:00Z"}`]) {
      expect(parseSyncWindowPass(raw), String(raw).slice(0, 40)).toBeUndefined();
    }
  });

  it('keeps a name to one bounded line', () => {
    expect(parseSyncWindowPass(JSON.stringify({ by: 'otto\n\u2028forged line', at: '2026-03-31T10:00:00Z' }))?.by).toBe('otto forged line');
    expect(parseSyncWindowPass(JSON.stringify({ by: 'a'.repeat(300), at: '2026-03-31T10:00:00Z' }))?.by).toHaveLength(200);
    expect(parseSyncWindowPass(JSON.stringify({ by: '\n', at: '2026-03-31T10:00:00Z' }))?.by).toBe('unknown');
  });
});
