import { describe, expect, it } from 'vitest';
import { deriveFromSourceUrl, gitHostsConfig } from './git-hosts-config';

const context = {
  sourceUrls: new Map([['shop', 'https://gitea.example/team/shop.git'], ['odd', 'https://git.example/a/b/c/d.git']]),
  clusters: ['east', 'west'],
  base: '/etc/tidemark',
  invalid: (field: string, message: string) => new Error(`tidemark.yaml: ${field}: ${message}`),
};

describe('gitHostsConfig', () => {
  it('derives the API and repository from the source URL per provider', () => {
    expect(deriveFromSourceUrl('https://gitea.example/team/shop.git', 'gitea')).toEqual({ apiUrl: 'https://gitea.example/api/v1', repository: 'team/shop' });
    expect(deriveFromSourceUrl('https://github.com/team/shop', 'github')).toEqual({ apiUrl: 'https://api.github.com', repository: 'team/shop' });
    expect(deriveFromSourceUrl('https://ghe.example/team/shop.git', 'github')).toEqual({ apiUrl: 'https://ghe.example/api/v3', repository: 'team/shop' });
    expect(deriveFromSourceUrl('https://gitlab.example/group/sub/shop.git', 'gitlab')).toEqual({ apiUrl: 'https://gitlab.example/api/v4', repository: 'group/sub/shop' });
    expect(deriveFromSourceUrl('https://gitea.example/a/b/c.git', 'gitea')).toBeUndefined();
    expect(deriveFromSourceUrl('git@github.com:team/shop.git', 'github')).toEqual({ apiUrl: 'https://api.github.com', repository: 'team/shop' });
    expect(deriveFromSourceUrl('ssh://git@gitea.example:2222/team/shop.git', 'gitea')).toEqual({ apiUrl: 'https://gitea.example/api/v1', repository: 'team/shop' });
    expect(deriveFromSourceUrl('git@gitlab.example:group/sub/shop.git', 'gitlab')).toEqual({ apiUrl: 'https://gitlab.example/api/v4', repository: 'group/sub/shop' });
    expect(deriveFromSourceUrl('ssh://git:pw@github.com/team/shop.git', 'github')).toBeUndefined();
  });

  it('resolves a Secret reference to the first cluster and key token; forgejo speaks gitea', () => {
    const [host] = gitHostsConfig([{ source: 'shop', provider: 'forgejo', token: { secretRef: { namespace: 'tidemark', name: 'forgejo' } } }], context);
    expect(host).toEqual({
      source: 'shop', provider: 'gitea', apiUrl: 'https://gitea.example/api/v1', repository: 'team/shop',
      token: { secretRef: { cluster: 'east', namespace: 'tidemark', name: 'forgejo', key: 'token' } }, context: 'tidemark', pullRequestComments: true,
    });
    expect(gitHostsConfig([{ source: 'shop', provider: 'gitea', token: { file: 'token' } }], context)[0]!.token).toEqual({ file: '/etc/tidemark/token' });
  });

  it('names the field it refuses', () => {
    expect(() => gitHostsConfig([{ source: 'nope', provider: 'gitea', token: { file: 't' } }], context)).toThrow('tidemark.yaml: gitHosts[0].source: no source is named "nope"');
    expect(() => gitHostsConfig([{ source: 'odd', provider: 'gitea', token: { file: 't' } }], context)).toThrow('gitHosts[0].apiUrl: cannot be derived');
    expect(() => gitHostsConfig([{ source: 'shop', provider: 'gitea', token: { secretRef: { cluster: 'north', namespace: 'a', name: 'b' } } }], context)).toThrow('gitHosts[0].token.secretRef.cluster: no cluster is named "north"');
  });
});
