// rebuildsWithin: a poll waits for the Redis-loss rebuild at most its budget. The rebuilds here
// are stand-ins whose end the test decides (the timing is the point, not the cluster sweep).
import { describe, expect, it } from 'vitest';
import { rebuildsWithin, sweepsAhead } from './records-rebuild';

function deferred(): { promise: Promise<number>; resolve(written: number): void } {
  let resolve!: (written: number) => void;
  const promise = new Promise<number>((settle) => { resolve = settle; });
  return { promise, resolve };
}

describe('rebuildsWithin', () => {
  it('lets a poll go on after its budget while the rebuild runs, and the first poll after it ends routes what it wrote', async () => {
    const slow: string[] = [];
    const rebuilds = rebuildsWithin(20, (source) => slow.push(source));
    const sweep = deferred();
    let started = 0;
    const rebuild = () => { started += 1; return sweep.promise; };
    // The sweep hangs (a cluster whose CRD storage is initializing): the poll goes on with nothing rebuilt.
    expect(await rebuilds('shop', rebuild)).toBe(0);
    expect(slow).toEqual(['shop']);
    // The next poll joins the same rebuild rather than starting a second sweep.
    expect(await rebuilds('shop', rebuild)).toBe(0);
    expect(started).toBe(1);
    sweep.resolve(3);
    await sweep.promise;
    // The rebuild wrote 3 records after its polls stopped waiting: the next poll routes everything, once.
    expect(await rebuilds('shop', async () => 0)).toBe(3);
    expect(await rebuilds('shop', async () => 0)).toBe(0);
  });

  it('gives a poll the records of a rebuild that ends within the budget, and rethrows its failure', async () => {
    const rebuilds = rebuildsWithin(5_000, () => { throw new Error('not slow'); });
    expect(await rebuilds('shop', async () => 2)).toBe(2);
    await expect(rebuilds('shop', async () => { throw new Error('Redis does not answer'); })).rejects.toThrow('Redis does not answer');
    expect(await rebuilds('shop', async () => 0)).toBe(0);
  });
});

// sweepsAhead: the sweeps are stand-ins that count their calls (the cluster sweep itself is the
// rig's test/safety/redis-loss-rebuild).
describe('sweepsAhead', () => {
  it('starts each cluster\'s sweep at once, hands it to every rebuild until it is dropped, then sweeps afresh', async () => {
    const swept: string[] = [];
    const ahead = sweepsAhead(['east', 'west'], async (cluster) => { swept.push(cluster); return `${cluster} ${swept.length}`; }, 20);
    expect(swept).toEqual(['east', 'west']);
    // Two sources' first rebuilds read the same sweep of east.
    expect(await ahead.take('east')).toBe('east 1');
    expect(await ahead.take('east')).toBe('east 1');
    expect(swept).toEqual(['east', 'west']);
    expect(ahead.take('north')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(ahead.take('west')).toBeUndefined();
  });

  it('sweeps again when the sweep started ahead failed', async () => {
    let calls = 0;
    const ahead = sweepsAhead(['east'], async () => {
      calls += 1;
      if (calls === 1) throw new Error('the API server does not answer');
      return calls;
    }, 1_000);
    expect(await ahead.take('east')).toBe(2);
    // The failed one is dropped: a later rebuild sweeps afresh itself.
    expect(ahead.take('east')).toBeUndefined();
  });
});
