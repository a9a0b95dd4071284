import { describe, expect, it } from 'vitest';
import { defaultRenderCacheBytes, RenderOutputCache } from './render-output-cache';

const output = (bytes: number) => Promise.resolve({ text: 'x'.repeat(bytes) });
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('RenderOutputCache', () => {
  it('keeps done renders within its byte budget, dropping the least recently used', async () => {
    const cache = new RenderOutputCache<{ text: string }>(1_000);
    cache.set('a', output(400)).set('b', output(400));
    await settle();
    // Use a again: b is now the oldest.
    const a = cache.get('a')!;
    cache.delete('a');
    cache.set('a', a);
    cache.set('c', output(400));
    await settle();
    expect([...cache.keys()]).toEqual(['a', 'c']);
    expect(cache.bytes).toBe(800);
  });

  it('does not keep a text larger than the whole budget, and forgets a failed render', async () => {
    const cache = new RenderOutputCache<{ text: string }>(1_000);
    cache.set('small', output(10)).set('huge', output(1_001));
    const failed = Promise.reject(new Error('render failed'));
    cache.set('failed', failed);
    failed.catch(() => cache.delete('failed'));
    await settle();
    expect([...cache.keys()]).toEqual(['small']);
    expect(cache.bytes).toBe(10);
  });

  it('holds 64 MiB by default, not 512 outputs of 32 MiB (16 GiB)', async () => {
    expect(defaultRenderCacheBytes).toBe(64 * 1024 * 1024);
    const cache = new RenderOutputCache<{ text: string }>(defaultRenderCacheBytes);
    for (let index = 0; index < 8; index += 1) cache.set(`unit-${index}`, output(16 * 1024 * 1024));
    await settle();
    expect(cache.size).toBe(4);
    expect(cache.bytes).toBeLessThanOrEqual(defaultRenderCacheBytes);
  });
});
