import { describe, expect, it } from 'vitest';
import { formatDuration, parseHealthTimeout } from './health-timeout';

describe('parseHealthTimeout', () => {
  it('reads durations in ms, s, m and h, and nothing when absent', () => {
    expect([parseHealthTimeout('500ms'), parseHealthTimeout('90s'), parseHealthTimeout(' 5m '), parseHealthTimeout('1h30m'), parseHealthTimeout(undefined)]).toEqual([500, 90_000, 300_000, 5_400_000, undefined]);
  });
  it.each(['90', '-5m', '5 m', '1d', '', '0s', '25h'])('refuses %j, saying the form', (text) => {
    expect(() => parseHealthTimeout(text)).toThrow(/is not a duration: write a number and a unit|is out of range: a health timeout is more than 0 and at most 24h/);
  });
});

describe('formatDuration', () => {
  it('says a wait to the second', () => {
    expect([formatDuration(400), formatDuration(2_000), formatDuration(125_000), formatDuration(3_630_000)]).toEqual(['0s', '2s', '2m5s', '1h0m30s']);
  });
});
