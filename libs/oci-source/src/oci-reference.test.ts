import { describe, expect, it } from 'vitest';
import { parseOciUrl } from './oci-reference';

describe('parseOciUrl', () => {
  it('reads a registry host, port and repository path', () => {
    expect(parseOciUrl('oci://registry.example.com:5000/team/apps')).toEqual({ origin: 'https://registry.example.com:5000', host: 'registry.example.com:5000', repository: 'team/apps' });
    expect(parseOciUrl('oci://127.0.0.1:5000/apps', { insecure: true })).toMatchObject({ origin: 'http://127.0.0.1:5000' });
  });

  it.each([
    ['https://registry.example.com/apps', /does not start with oci:\/\//],
    ['oci://user:pw@registry.example.com/apps', /must not contain credentials/],
    ['oci://registry.example.com/Team/Apps', /is not a repository name/],
    ['oci://registry.example.com/apps?tag=1', /must not have a query/],
    ['oci://registry.example.com/apps/../etc', /has a "\." or "\.\." path segment/],
    ['oci://registry.example.com/apps/%2E%2E/etc', /has a "\." or "\.\." path segment/],
    ['oci://registry.example.com/', /is not a repository name/],
  ])('refuses %s', (url, problem) => {
    const parsed = parseOciUrl(url);
    expect('problem' in parsed ? parsed.problem : '').toMatch(problem);
  });

  it('allows plain http only for a loopback registry', () => {
    expect(parseOciUrl('oci://registry.example.com/apps', { insecure: true })).toEqual({ problem: 'insecure (plain http) is allowed only for a loopback registry, not registry.example.com' });
  });
});
