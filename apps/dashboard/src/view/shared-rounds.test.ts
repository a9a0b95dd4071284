import { describe, expect, it } from 'vitest';
import { SharedRounds } from './shared-rounds';

/** manualRounds counts rounds and lets the test end each one. */
function manualRounds() {
  const ends: Array<() => void> = [];
  const rounds = new SharedRounds(() => new Promise<void>((resolve) => ends.push(resolve)));
  return { rounds, started: () => ends.length, end: (index: number) => ends[index]!() };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('SharedRounds', () => {
  it('serves callers that arrive during a round with one next round, never with the round under way', async () => {
    const { rounds, started, end } = manualRounds();
    const done: string[] = [];
    void rounds.run().then(() => done.push('first'));
    expect(started()).toBe(1);
    for (const name of ['a', 'b', 'c']) void rounds.run().then(() => done.push(name));
    expect(started()).toBe(1);
    end(0);
    await settled();
    // The round under way ends: it served only the caller that started it; the others share round 2.
    expect(done).toEqual(['first']);
    expect(started()).toBe(2);
    end(1);
    await settled();
    expect(done).toEqual(['first', 'a', 'b', 'c']);
  });

  it('starts a round at once when none is under way, and passes a failed round to its callers', async () => {
    let calls = 0;
    const rounds = new SharedRounds(async () => {
      calls += 1;
      if (calls === 1) throw new Error('Redis is down');
    });
    await expect(rounds.run()).rejects.toThrow('Redis is down');
    await rounds.run();
    await rounds.run();
    expect(calls).toBe(3);
  });
});
