import { describe, expect, it } from 'vitest';
import { pollDelay } from './poll-delay';
import { scrubCredentials } from './source-status';

describe('pollDelay', () => {
  it('moves the interval by at most ±jitter', () => {
    expect(pollDelay(60_000, 0.1, () => 0)).toBe(54_000);
    expect(pollDelay(60_000, 0.1, () => 0.5)).toBe(60_000);
    expect(pollDelay(60_000, 0.1, () => 0.9999999)).toBe(66_000);
    expect(pollDelay(60_000, 0, () => 0)).toBe(60_000);
  });
});

describe('scrubCredentials', () => {
  it('removes credentials from URLs in messages', () => {
    expect(scrubCredentials('failed to fetch https://bob:hunter2@git.example.com/a.git: 500')).toBe('failed to fetch https://***@git.example.com/a.git: 500');
  });
});
