import { describe, expect, it } from 'vitest';
import { pollDelay, retryDelay } from './poll-delay';
import { scrubCredentials } from './source-status';

describe('pollDelay', () => {
  it('moves the interval by at most ±jitter', () => {
    expect(pollDelay(60_000, 0.1, () => 0)).toBe(54_000);
    expect(pollDelay(60_000, 0.1, () => 0.5)).toBe(60_000);
    expect(pollDelay(60_000, 0.1, () => 0.9999999)).toBe(66_000);
    expect(pollDelay(60_000, 0, () => 0)).toBe(60_000);
  });
});

describe('retryDelay', () => {
  it('doubles from the base per failure in a row, up to the cap, less up to a fifth at random', () => {
    expect([1, 2, 3, 4].map((failures) => retryDelay(failures, 1_000, 60_000, () => 0))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelay(7, 1_000, 60_000, () => 0)).toBe(60_000);
    expect(retryDelay(500, 1_000, 60_000, () => 0)).toBe(60_000);
    expect(retryDelay(1, 1_000, 60_000, () => 0.9999999)).toBe(800);
  });
});

describe('scrubCredentials', () => {
  it('removes credentials from URLs in messages', () => {
    expect(scrubCredentials('failed to fetch https://bob:hunter2@git.example.com/a.git: 500')).toBe('failed to fetch https://***@git.example.com/a.git: 500');
  });
});
