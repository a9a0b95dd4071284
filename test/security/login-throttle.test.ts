// Sign-in is throttled per client: after five failures a client waits, whatever token it sends.
// Bearer tokens on /api/* count the same way, so the API is no oracle for guessing tokens. Behind
// a shared address, a sign-in that names its token counts per (address, name), and with trusted
// proxies the address is the client's from X-Forwarded-For: one client cannot lock everyone out.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { operatorToken, startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let fixture: DashboardFixture;
let proxied: DashboardFixture;
beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  proxied = await startDashboardFixture(inject('redisUrl'), { trustedProxies: ['127.0.0.1'] });
});
afterAll(async () => {
  await fixture?.stop();
  await proxied?.stop();
});

const signIn = (token: string, remoteAddress: string, extra: { name?: string; forwardedFor?: string; on?: DashboardFixture } = {}) => (extra.on ?? fixture).app.inject({
  method: 'POST', url: '/login', remoteAddress, payload: `token=${encodeURIComponent(token)}${extra.name ? `&name=${extra.name}` : ''}&next=%2F`,
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(extra.forwardedFor ? { 'x-forwarded-for': extra.forwardedFor } : {}) },
});
const withBearer = (token: string, remoteAddress: string) => fixture.app.inject({ url: '/api/session', remoteAddress, headers: { authorization: `Bearer ${token}` } });

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

  it('throttles failed bearer tokens on /api/* per client address: 5 answered, then 429 even for the operator\'s token', async () => {
    const answers = [];
    for (let attempt = 0; attempt < 12; attempt += 1) answers.push((await withBearer(`guess-${attempt}-0123456789abcdef`, '10.0.1.1')).statusCode);
    expect(answers.filter((status) => status === 401)).toHaveLength(5);
    expect(answers.slice(5).every((status) => status === 429)).toBe(true);
    const right = await withBearer(operatorToken, '10.0.1.1');
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    // The same address's sign-in form counts the same failures: no fresh tries there.
    expect((await signIn(operatorToken, '10.0.1.1')).statusCode).toBe(429);
    expect((await withBearer(operatorToken, '10.0.1.2')).statusCode).toBe(200);
  });

  it('a right viewer token does not buy more guesses at another token', async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 8; attempt += 1) {
      statuses.push((await withBearer(`guess-${attempt}-0123456789abcdef`, '10.0.1.3')).statusCode);
      await withBearer(viewerToken, '10.0.1.3');
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
  });

  it('behind one shared address, guesses lock out only the names they tried', async () => {
    const shared = '10.0.2.1';
    for (let attempt = 0; attempt < 10; attempt += 1) await signIn(`guess-${attempt}-0123456789abcdef`, shared);
    expect((await signIn(viewerToken, shared)).statusCode).toBe(429);
    // Someone guessing vera's token by name locks vera's tries from this address, nobody else's.
    for (let attempt = 0; attempt < 6; attempt += 1) await signIn(`guess-${attempt}-0123456789abcdef`, shared, { name: 'vera' });
    expect((await signIn(viewerToken, shared, { name: 'vera' })).statusCode).toBe(429);
    const otto = await signIn(operatorToken, shared, { name: 'otto' });
    expect(otto.statusCode).toBe(303);
    expect(otto.headers['set-cookie']).toBeDefined();
    // A token signs in only under its own name.
    expect((await signIn(viewerToken, '10.0.2.2', { name: 'otto' })).headers.location).toMatch(/^\/login\?failed=1/);
  });

  it('reads the client from X-Forwarded-For only through trusted proxies', async () => {
    for (let attempt = 0; attempt < 6; attempt += 1) await signIn(`guess-${attempt}-0123456789abcdef`, '127.0.0.1', { on: proxied, forwardedFor: '198.51.100.7' });
    expect((await signIn(viewerToken, '127.0.0.1', { on: proxied, forwardedFor: '198.51.100.7' })).statusCode).toBe(429);
    expect((await signIn(viewerToken, '127.0.0.1', { on: proxied, forwardedFor: '198.51.100.8' })).statusCode).toBe(303);
    // Without trusted proxies, a client cannot escape its count by writing the header itself.
    for (let attempt = 0; attempt < 6; attempt += 1) await signIn(`guess-${attempt}-0123456789abcdef`, '10.0.3.1', { forwardedFor: `203.0.113.${attempt}` });
    expect((await signIn(viewerToken, '10.0.3.1', { forwardedFor: '203.0.113.200' })).statusCode).toBe(429);
  });
});
