import { describe, expect, it } from 'vitest';
import { idle, runnable, Runnables } from './runnable';

const quiet = { info: () => undefined, warn: () => undefined };

describe('Runnables', () => {
  it('starts parts in order, gives back what each started, and stops them in reverse', async () => {
    const said: string[] = [];
    const parts = new Runnables(quiet);
    const a = await parts.start(runnable('a', () => { said.push('start a'); return { value: 1, stop: () => said.push('stop a') }; }));
    await parts.start(runnable('b', async () => { said.push('start b'); return { close: async () => { said.push('close b'); } }; }));
    await parts.start(runnable('c', () => { said.push('start c'); return () => said.push('stop c'); }));
    await parts.start(idle('d'));
    expect(a.value).toBe(1);
    expect(parts.names).toEqual(['a', 'b', 'c', 'd']);
    await parts.stop();
    expect(said).toEqual(['start a', 'start b', 'start c', 'stop c', 'close b', 'stop a']);
    await parts.stop();
    expect(said).toHaveLength(6);
  });

  it('does not stop a part whose start failed, and keeps stopping past a stop that fails', async () => {
    const said: string[] = [];
    const warned: unknown[] = [];
    const parts = new Runnables({ info: () => undefined, warn: (fields) => warned.push(fields) });
    await parts.start(runnable('first', () => () => said.push('stop first')));
    await parts.start(runnable('broken stop', () => () => { throw new Error('no'); }));
    await expect(parts.start(runnable('failing', () => { throw new Error('cannot start'); }))).rejects.toThrow('cannot start');
    await parts.stop();
    expect(said).toEqual(['stop first']);
    expect(warned).toEqual([{ part: 'broken stop', err: 'no' }]);
  });
});
