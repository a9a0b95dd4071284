// Sign-in is throttled per client: after five failures a client waits, whatever token it sends.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let fixture: DashboardFixture;
beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
});
afterAll(async () => fixture?.stop());

const signIn = (token: string, remoteAddress: string) => fixture.app.inject({
  method: 'POST', url: '/login', remoteAddress, payload: `token=${encodeURIComponent(token)}&next=%2F`,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe('sign-in throttling', () => {
  it('refuses a client after five failed sign-ins, even with a right token; other clients carry on', async () => {
    const guesses = [];
    for (let attempt = 0; attempt < 20; attempt += 1) guesses.push((await signIn(`guess-${attempt}-0123456789abcdef`, '10.0.0.7')).statusCode);
    // Guesses answered at all (not refused outright): 5 of 20.
    expect(guesses.filter((status) => status === 303)).toHaveLength(5);
    expect(guesses.slice(5).every((status) => status === 429)).toBe(true);
    const blocked = await signIn(viewerToken, '10.0.0.7');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ code: 'TooManySignInAttempts' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.headers['set-cookie']).toBeUndefined();
    expect((await signIn(viewerToken, '10.0.0.8')).statusCode).toBe(303);
  });
});
