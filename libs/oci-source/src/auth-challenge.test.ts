import { describe, expect, it } from 'vitest';
import { parseAuthChallenge } from './auth-challenge';

describe('parseAuthChallenge', () => {
  it('reads a Bearer challenge as Docker Hub and distribution send it', () => {
    expect(parseAuthChallenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"'))
      .toEqual({ scheme: 'bearer', realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/nginx:pull' });
  });

  it('reads Basic, spelled in any case, and unquoted or escaped parameters', () => {
    expect(parseAuthChallenge('basic realm="x"')).toEqual({ scheme: 'basic' });
    expect(parseAuthChallenge('BEARER realm=https://r.example/token, service="a\\"b"')).toEqual({ scheme: 'bearer', realm: 'https://r.example/token', service: 'a"b' });
  });

  it('gives nothing for no header, another scheme, or a Bearer challenge without a realm', () => {
    expect(parseAuthChallenge(undefined)).toBeUndefined();
    expect(parseAuthChallenge('Negotiate abc')).toBeUndefined();
    expect(parseAuthChallenge('Bearer service="x"')).toBeUndefined();
  });
});
