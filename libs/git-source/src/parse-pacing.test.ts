import { describe, expect, it } from 'vitest';
import { ParsePacing } from './parse-pacing';

describe('ParsePacing', () => {
  it('runs a full collection once enough bytes were parsed, without a process warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const pacing = new ParsePacing(1000);
      let garbage: unknown[] = Array.from({ length: 1_000_000 }, (_, index) => ({ index, text: `item ${index}` }));
      const held = process.memoryUsage().heapUsed;
      garbage = [];
      expect(garbage).toHaveLength(0);
      // 999 bytes, then the 1,000th: the collection is due.
      await pacing.parsed(999);
      await pacing.parsed(1);
      const after = process.memoryUsage().heapUsed;
      expect(after).toBeLessThan(held / 2);
      await new Promise((done) => setImmediate(done));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
