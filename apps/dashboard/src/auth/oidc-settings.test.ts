import { describe, expect, it } from 'vitest';
import { grantFor, groupsOf, nameOf, parseOidcSettings } from './oidc-settings';

const secret = 'client-secret-that-must-never-be-quoted';
const valid = {
  issuer: 'https://id.example.test', clientId: 'tidemark', redirectUri: 'https://dash.example.test/auth/oidc/callback',
  groups: [{ group: 'sre', role: 'admin' }, { group: 'team-a', role: 'operator', scope: { namespaces: ['team-a'] } }, { group: 'east-oncall', role: 'operator', scope: { clusters: ['east'] } }, { group: 'everyone', role: 'viewer' }],
};
const parse = (value: unknown, clientSecret: string | undefined = secret) => parseOidcSettings(JSON.stringify(value), '/etc/tidemark/oidc.json', clientSecret);

describe('parseOidcSettings', () => {
  it('reads the file with its defaults: scopes, the groups claim, the sign-out return', () => {
    const settings = parse(valid);
    expect(settings).toMatchObject({ issuer: 'https://id.example.test', groupsClaim: 'groups', scopes: ['openid', 'profile', 'email', 'groups'], postLogoutRedirectUri: 'https://dash.example.test/login' });
    expect(settings.groups[1]?.scope).toEqual({ sources: [], namespaces: ['team-a'], clusters: [] });
    expect(settings.groups[2]?.scope).toEqual({ sources: [], namespaces: [], clusters: ['east'] });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('refuses bad settings naming the file and the field, never quoting the secret', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ ...valid, issuer: 'http://id.example.test' }, /\/issuer must be https \(http only on loopback\)/],
      [{ ...valid, issuer: 'https://user:pass@id.example.test' }, /\/issuer must carry no credentials/],
      [{ ...valid, redirectUri: 'https://dash.example.test/elsewhere' }, /\/redirectUri must end in \/auth\/oidc\/callback/],
      [{ ...valid, scopes: ['profile'] }, /\/scopes must include openid/],
      [{ ...valid, groups: [] }, /\/groups/],
      [{ ...valid, groups: [{ group: 'x', role: 'root' }] }, /\/groups\/0\/role/],
      [{ ...valid, groups: [{ group: 'x', role: 'viewer', scope: {} }] }, /\/groups\/0\/scope names no source and no namespace/],
      [{ ...valid, groups: [{ group: 'x', role: 'viewer', scope: { clusters: [] } }] }, /\/groups\/0\/scope names no source and no namespace, and no cluster/],
      [{ ...valid, groups: [{ group: 'x', role: 'viewer', scope: { clusters: ['c'.repeat(64)] } }] }, /\/groups\/0\/scope\/clusters\/0/],
      [{ ...valid, clientSecret: secret }, /must not have additional properties|clientSecret/],
      [{ ...valid, groups: Array.from({ length: 1001 }, (_, index) => ({ group: `g${index}`, role: 'viewer' })) }, /\/groups/],
    ];
    for (const [value, message] of cases) {
      expect(() => parse(value), JSON.stringify(value).slice(0, 80)).toThrow(message);
      try {
        parse(value);
      } catch (error) {
        expect((error as Error).message).toContain('/etc/tidemark/oidc.json');
        expect((error as Error).message).not.toContain(secret);
      }
    }
    expect(() => parseOidcSettings(JSON.stringify(valid), 'oidc.json', undefined)).toThrow(/client secret is missing/);
    expect(() => parseOidcSettings('{not json', 'oidc.json', secret)).toThrow(/oidc.json is not JSON/);
  });

  it('allows plain http to a loopback provider only', () => {
    expect(parse({ ...valid, issuer: 'http://127.0.0.1:5556', redirectUri: 'http://127.0.0.1:8080/auth/oidc/callback' }).issuer).toBe('http://127.0.0.1:5556');
    expect(() => parse({ ...valid, issuer: 'http://127.0.0.1.nip.io:5556' })).toThrow(/https/);
  });
});

describe('grantFor', () => {
  const settings = parse(valid);

  it('gives the first entry whose group the user has: order decides, not rank', () => {
    expect(grantFor({ groups: ['everyone', 'team-a'] }, settings)).toMatchObject({ grant: { role: 'operator', scope: { namespaces: ['team-a'] } } });
    expect(grantFor({ groups: ['everyone', 'sre'] }, settings)).toMatchObject({ grant: { role: 'admin' } });
    expect(grantFor({ groups: ['east-oncall', 'everyone'] }, settings)).toMatchObject({ grant: { role: 'operator', scope: { clusters: ['east'] } } });
    expect(grantFor({ groups: 'everyone' }, settings)).toMatchObject({ grant: { role: 'viewer' } });
  });

  it('refuses, saying why: no claim, no group, no mapped group, a group spelled another way, a claim of the wrong shape', () => {
    expect(grantFor({}, settings)).toEqual({ refused: expect.stringContaining('sent no "groups" claim') });
    expect(grantFor({ groups: [] }, settings)).toEqual({ refused: expect.stringContaining('in no group') });
    expect(grantFor({ groups: ['SRE', 'Team-A'] }, settings)).toEqual({ refused: expect.stringContaining('None of your groups (SRE, Team-A)') });
    expect(grantFor({ groups: [['sre']] }, settings)).toEqual({ refused: expect.stringContaining('not a list of group names') });
    expect(grantFor({ groups: { sre: true } }, settings)).toEqual({ refused: expect.stringContaining('not a list of group names') });
  });
});

describe('groupsOf and nameOf', () => {
  it('bounds what is kept from the claims', () => {
    expect(groupsOf({ groups: Array.from({ length: 500 }, (_, index) => `g${index}`) }, 'groups')).toHaveLength(100);
    expect(groupsOf({ groups: ['x'.repeat(10_000)] }, 'groups')[0]).toHaveLength(256);
    expect(nameOf({ sub: 's1', email: 'a@b' }, undefined)).toBe('a@b');
    expect(nameOf({ sub: 's1', upn: 'u' }, 'upn')).toBe('u');
    expect(nameOf({}, undefined)).toBe('unknown');
  });
});
