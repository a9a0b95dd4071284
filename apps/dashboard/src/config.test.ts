import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseTokens } from './config';

const tokens = JSON.stringify([{ name: 'ann', role: 'operator', token: 'a'.repeat(20) }, { name: 'bob', role: 'viewer', token: 'b'.repeat(20) }]);

describe('loadConfig', () => {
  it('reads the environment with defaults and freezes the result', () => {
    const config = loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens, TIDEMARK_DASHBOARD_CLUSTERS: 'a, b,', TIDEMARK_DASHBOARD_PORT: '9000' });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 9000, redisPrefix: 'tidemark', clusters: ['a', 'b'], sessionSecretGenerated: true, secureCookies: false });
    expect(config.tokens.map((token) => token.role)).toEqual(['operator', 'viewer']);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.tokens[0])).toBe(true);
  });

  it('refuses to run without tokens, with a short secret or a bad port', () => {
    expect(() => loadConfig({})).toThrow(/TIDEMARK_DASHBOARD_TOKENS_FILE/);
    expect(() => loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens, TIDEMARK_DASHBOARD_SESSION_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens, TIDEMARK_DASHBOARD_PORT: 'http' })).toThrow(/PORT/);
    expect(() => loadConfig({ TIDEMARK_DASHBOARD_TOKENS_FILE: '/nonexistent/tokens.json' })).toThrow(/Could not read/);
  });

  it('takes a trace UI URL with {traceId}, none by default, and refuses one without it, with credentials or another scheme', () => {
    expect(loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens }).traceUrl).toBeUndefined();
    expect(loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens, TIDEMARK_DASHBOARD_TRACE_URL: 'https://jaeger.example.com/trace/{traceId}' }).traceUrl).toBe('https://jaeger.example.com/trace/{traceId}');
    for (const bad of ['https://jaeger.example.com/trace/', 'javascript:alert("{traceId}")', 'https://user:pw@jaeger.example.com/trace/{traceId}', 'not a url {traceId}']) {
      expect(() => loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens, TIDEMARK_DASHBOARD_TRACE_URL: bad })).toThrow(/TIDEMARK_DASHBOARD_TRACE_URL/);
    }
  });

  it('reads trusted proxies as addresses or CIDRs, none by default, and names a bad entry', () => {
    expect(loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens }).trustedProxies).toEqual([]);
    expect(loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens, TIDEMARK_DASHBOARD_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.5,fd00::/8' }).trustedProxies).toEqual(['10.0.0.0/8', '192.168.1.5', 'fd00::/8']);
    for (const bad of ['loopback', '10.0.0.0/33', '10.0.0.1/8/1', 'ingress.example.com']) {
      expect(() => loadConfig({ TIDEMARK_DASHBOARD_TOKENS: tokens, TIDEMARK_DASHBOARD_TRUSTED_PROXIES: bad }), bad).toThrow(`TIDEMARK_DASHBOARD_TRUSTED_PROXIES: "${bad}" is not an IP address or CIDR`);
    }
  });
});

describe('parseTokens', () => {
  it('refuses short tokens, unknown roles, duplicates and non-JSON, without quoting the token', () => {
    expect(() => parseTokens(JSON.stringify([{ name: 'a', role: 'viewer', token: 'short-secret' }]), 'X')).toThrow(/X: \/0\/token/);
    expect(() => parseTokens(JSON.stringify([{ name: 'a', role: 'viewer', token: 'short-secret' }]), 'X')).not.toThrow(/short-secret/);
    expect(() => parseTokens(JSON.stringify([{ name: 'a', role: 'admin', token: 'x'.repeat(20) }]), 'X')).toThrow(ConfigError);
    expect(() => parseTokens(JSON.stringify([{ name: 'a', role: 'viewer', token: 'x'.repeat(20) }, { name: 'b', role: 'viewer', token: 'x'.repeat(20) }]), 'X')).toThrow(/own value/);
    expect(() => parseTokens('not json', 'X')).toThrow(/not JSON/);
  });

  it('reads a token scope, and refuses one that limits nothing, naming the token', () => {
    const [scoped] = parseTokens(JSON.stringify([{ name: 'ada', role: 'viewer', token: 'x'.repeat(20), scope: { sources: ['team-a'] } }]), 'X');
    expect(scoped?.scope).toEqual({ sources: ['team-a'], namespaces: [], clusters: [] });
    expect(() => parseTokens(JSON.stringify([{ name: 'ada', role: 'viewer', token: 'x'.repeat(20), scope: {} }]), 'X')).toThrow(/X: \/0\/scope names no source and no namespace/);
    expect(() => parseTokens(JSON.stringify([{ name: 'ada', role: 'viewer', token: 'x'.repeat(20), scope: { teams: ['a'] } }]), 'X')).toThrow(/X: \/0\/scope/);
  });

  it('reads a scope limited to clusters alone, and refuses empty or oversized cluster lists', () => {
    const [scoped] = parseTokens(JSON.stringify([{ name: 'cleo', role: 'operator', token: 'x'.repeat(20), scope: { clusters: ['east'] } }]), 'X');
    expect(scoped?.scope).toEqual({ sources: [], namespaces: [], clusters: ['east'] });
    expect(Object.isFrozen(scoped?.scope?.clusters)).toBe(true);
    const token = (scope: unknown) => JSON.stringify([{ name: 'cleo', role: 'viewer', token: 'x'.repeat(20), scope }]);
    expect(() => parseTokens(token({ clusters: [] }), 'X')).toThrow(/X: \/0\/scope names no source and no namespace, and no cluster/);
    expect(() => parseTokens(token({ clusters: [''] }), 'X')).toThrow(/X: \/0\/scope\/clusters\/0/);
    expect(() => parseTokens(token({ clusters: ['c'.repeat(64)] }), 'X')).toThrow(/X: \/0\/scope\/clusters\/0/);
    expect(() => parseTokens(token({ clusters: Array.from({ length: 257 }, (_, index) => `c${index}`) }), 'X')).toThrow(/X: \/0\/scope\/clusters/);
    expect(() => parseTokens(token({ clusters: 'east' }), 'X')).toThrow(/X: \/0\/scope\/clusters/);
  });
});
