// Hole 5: after sign-in the dashboard redirects only to its own origin, however `next` is spelled.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let fixture: DashboardFixture;
beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
});
afterAll(async () => fixture?.stop());

// Each is sent URL-encoded, as a browser's form or link would send it.
const hostile = ['/\t/evil.example', '/\n/evil.example', '/\\/evil.example', '/\t\\evil.example', '/.//evil.example', '//evil.example', 'https://evil.example/', '/%09/evil.example'];

describe('redirect after sign-in', () => {
  it('lands on the dashboard itself for every hostile next, by form post and by the login page link', async () => {
    const landed: string[] = [];
    for (const next of hostile) {
      const login = await fixture.app.inject({
        method: 'POST', url: '/login', payload: `token=${viewerToken}&next=${encodeURIComponent(next)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(login.statusCode).toBe(303);
      // Resolve Location as the browser does, against the page it came from.
      landed.push(new URL(String(login.headers.location), 'https://dash.example/login').host);
      const form = await fixture.app.inject({ url: `/login?next=${encodeURIComponent(next)}` });
      const hidden = /name="next" value="([^"]*)"/.exec(form.body)?.[1]?.replace(/&amp;/g, '&').replace(/&#x2F;|&#47;/g, '/') ?? '/';
      landed.push(new URL(hidden, 'https://dash.example/login').host);
    }
    // Redirects that left the dashboard: 0.
    expect(landed.filter((host) => host !== 'dash.example')).toEqual([]);
  });

  it('keeps a real local path', async () => {
    const login = await fixture.app.inject({
      method: 'POST', url: '/login', payload: `token=${viewerToken}&next=${encodeURIComponent('/objects?kind=WebApp')}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(login.headers.location).toBe('/objects?kind=WebApp');
  });
});
