import { describe, expect, it } from 'vitest';
import { parseSourceSpec, parseSourceSpecs } from './source-spec';

const valid = { name: 'apps', url: 'https://git.example.com/org/apps.git', ref: { branch: 'main' }, intervalMs: 60_000 };
const armoredKey = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nxjMEZ\n-----END PGP PUBLIC KEY BLOCK-----';

describe('parseSourceSpec', () => {
  it('takes ssh:// and scp-like URLs with a deploy key, as written', () => {
    const auth = { sshPrivateKey: 'key', passphrase: 'secret', knownHosts: 'github.com ssh-ed25519 AAAA' };
    expect(parseSourceSpec({ ...valid, url: 'git@github.com:org/repo.git', auth }, 's').url).toBe('git@github.com:org/repo.git');
    expect(parseSourceSpec({ ...valid, url: 'ssh://git@github.com:22/org/repo.git' }, 's').url).toBe('ssh://git@github.com:22/org/repo.git');
  });

  it('fills defaults and freezes the result', () => {
    const spec = parseSourceSpec(valid, 'sources[0]');
    expect(spec).toMatchObject({ path: '.', jitter: 0.1, ignoreFile: '.tidemarkignore' });
    expect(Object.isFrozen(spec)).toBe(true);
  });

  it('keeps a health timeout for its objects, and refuses one under a second', () => {
    expect(parseSourceSpec({ ...valid, healthTimeoutMs: 1_800_000 }, 's').healthTimeoutMs).toBe(1_800_000);
    expect(parseSourceSpec(valid, 's').healthTimeoutMs).toBeUndefined();
    expect(() => parseSourceSpec({ ...valid, healthTimeoutMs: 10 }, 'sources[1]')).toThrow('sources[1].healthTimeoutMs');
  });

  it('normalises the path and refuses one that leaves the repository', () => {
    expect(parseSourceSpec({ ...valid, path: './clusters/prod/' }, 's').path).toBe('clusters/prod');
    expect(() => parseSourceSpec({ ...valid, path: 'a/../../etc' }, 's')).toThrow('s.path: must stay inside the repository');
  });

  it.each([
    [{ ...valid, url: 'http://git.example.com/a.git' }, 'sources[1].url: must use https'],
    [{ ...valid, url: 'https://user:secret@git.example.com/a.git' }, 'sources[1].url: must not contain credentials'],
    [{ ...valid, url: 'not a url' }, 'sources[1].url: "not a url" is not a URL'],
    [{ ...valid, ref: { branch: 'main', tag: 'v1' } }, 'sources[1].ref'],
    [{ ...valid, ref: { commit: 'abc' } }, 'sources[1].ref'],
    [{ ...valid, ref: { semver: 'not-a-range!' } }, 'sources[1].ref.semver: "not-a-range!" is not a semver range'],
    [{ ...valid, jitter: 1.5 }, 'sources[1].jitter'],
    [{ ...valid, intervalMs: 10 }, 'sources[1].intervalMs'],
    [{ ...valid, name: 'Bad_Name' }, 'sources[1].name'],
    [{ ...valid, auth: { username: 'u' } }, 'sources[1].auth'],
    [{ ...valid, extra: true }, 'sources[1]'],
    [{ ...valid, url: 'ssh://git:secret@github.com/org/repo.git' }, 'sources[1].url: the SSH URL must not contain a password'],
    [{ ...valid, url: 'git@github.com:-x/repo.git' }, 'sources[1].url: the SSH URL has a path that starts with "-"'],
    [{ ...valid, url: 'git@github.com:org/repo.git', auth: { token: 't' } }, 'sources[1].auth: an SSH URL authenticates with a deploy key'],
    [{ ...valid, auth: { sshPrivateKey: 'k', knownHosts: 'h' } }, 'sources[1].auth: a deploy key needs an ssh:// or scp-like URL'],
    [{ ...valid, url: 'git@github.com:org/repo.git', auth: { sshPrivateKey: 'k' } }, 'sources[1].auth'],
  ])('names the field at fault: %#', (input, message) => {
    expect(() => parseSourceSpec(input, 'sources[1]')).toThrow(message);
  });

  it('allows plain http only to loopback hosts', () => {
    expect(parseSourceSpec({ ...valid, url: 'http://127.0.0.1:8080/a.git' }, 's').url).toBe('http://127.0.0.1:8080/a.git');
    expect(parseSourceSpec({ ...valid, url: 'http://localhost/a.git' }, 's').url).toBe('http://localhost/a.git');
  });

  it('never puts a secret into its error message', () => {
    let message = '';
    try {
      parseSourceSpec({ ...valid, url: 'https://bob:hunter2@git.example.com/a.git' }, 's');
    } catch (error) {
      message = String(error);
    }
    expect(message).not.toContain('hunter2');
  });
});

describe('parseSourceSpecs', () => {
  it('validates a list and refuses duplicate names', () => {
    expect(parseSourceSpecs([valid, { ...valid, name: 'other' }]).map((spec) => spec.name)).toEqual(['apps', 'other']);
    expect(() => parseSourceSpecs([valid, valid])).toThrow('sources[1].name: "apps" is used by another source');
    expect(() => parseSourceSpecs({})).toThrow('sources: must be a non-empty list');
    expect(() => parseSourceSpecs([valid, { ...valid, url: 'ftp://x' }])).toThrow('sources[1].url');
  });
});

describe('parseSourceSpec: tenancy fields', () => {
  it('reads the identity, allow-list, signing keys and limits, with defaults', () => {
    const spec = parseSourceSpec({
      ...valid,
      serviceAccount: { namespace: 'team-a', name: 'deployer' },
      allow: { namespaces: ['team-a', 'team-a-*'], clusterKinds: ['rbac.authorization.k8s.io/ClusterRole'] },
      verify: { openpgpKeys: [armoredKey], sshKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINQlpISOoceckhRteQxC+CaLz+aRQnsDX/9NxagDnmEN team-a'] },
      limits: { maxRevisionMiB: 4 },
    }, 's');
    expect(spec.serviceAccount).toEqual({ namespace: 'team-a', name: 'deployer' });
    expect(spec.allow).toEqual({
      namespaces: ['team-a', 'team-a-*'], kinds: ['*'], denyKinds: [], clusterKinds: ['rbac.authorization.k8s.io/ClusterRole'], clusters: ['*'], createNamespaces: false, serviceAccounts: [],
    });
    expect(spec.verify).toEqual({ mode: 'head', openpgpKeys: [armoredKey], sshKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINQlpISOoceckhRteQxC+CaLz+aRQnsDX/9NxagDnmEN team-a'] });
    expect(spec.limits).toEqual({ maxRevisionBytes: 4 * 1024 * 1024 });
    expect(Object.isFrozen(spec.allow?.namespaces)).toBe(true);
  });

  it('reads SSH keys alone, and mode tag for a source that follows tags', () => {
    const sshOnly = parseSourceSpec({ ...valid, ref: { semver: '^1.0.0' }, verify: { mode: 'tag', sshKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINQlpISOoceckhRteQxC+CaLz+aRQnsDX/9NxagDnmEN team-a'] } }, 's');
    expect(sshOnly.verify).toMatchObject({ mode: 'tag', openpgpKeys: [] });
  });

  it('leaves them unset when not given', () => {
    const spec = parseSourceSpec(valid, 's');
    expect(spec.serviceAccount).toBeUndefined();
    expect(spec.allow).toBeUndefined();
    expect(spec.verify).toBeUndefined();
    expect(spec.limits).toEqual({});
  });

  it.each([
    [{ ...valid, serviceAccount: { namespace: 'Team A', name: 'x' } }, 's.serviceAccount.namespace'],
    [{ ...valid, allow: { namespaces: [] } }, 's.allow.namespaces'],
    [{ ...valid, allow: { namespaces: ['a'], kinds: ['apps/deployment'] } }, 's.allow.kinds.0'],
    [{ ...valid, verify: {} }, 's.verify: name at least one key'],
    [{ ...valid, verify: { openpgpKeys: ['not a key'] } }, 's.verify.openpgpKeys[0]: must be an ASCII-armored OpenPGP public key'],
    [{ ...valid, verify: { sshKeys: ['ssh-dss AAAA'] } }, 's.verify.sshKeys[0]: must be an SSH public key line'],
    [{ ...valid, verify: { sshKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 team'] } }, 's.verify.sshKeys[0]: its key cannot be read'],
    [{ ...valid, verify: { sshKeys: ['ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAINQlpISOoceckhRteQxC+CaLz+aRQnsDX/9NxagDnmEN team'] } }, 's.verify.sshKeys[0]: its key is not base64 of a key of the named type'],
    [{ ...valid, verify: { mode: 'tag', openpgpKeys: [armoredKey] } }, 's.verify.mode: tag needs a source that follows a tag (ref.tag or ref.semver)'],
    [{ ...valid, limits: { maxRevisionMiB: 0 } }, 's.limits.maxRevisionMiB'],
  ])('names the tenancy field at fault: %#', (input, message) => {
    expect(() => parseSourceSpec(input, 's')).toThrow(message);
  });
});

describe('parseSourceSpec: OCI sources', () => {
  const oci = (fields: Record<string, unknown>) => ({ name: 'apps', url: 'oci://registry.example.com/team/apps', ref: { tag: 'v1' }, intervalMs: 60_000, ...fields });

  it('reads an oci:// source with a tag, semver range or digest and its oci block', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseSourceSpec(oci({ ref: { digest }, oci: { cosignKeys: [] } }), 'sources[0]')).toMatchObject({ ref: { digest }, oci: { insecure: false, cosignKeys: [] } });
    expect(parseSourceSpec(oci({ ref: { semver: '1.x' }, auth: { username: 'robot', password: 'pw' } }), 'sources[0]').oci).toEqual({ insecure: false, cosignKeys: [] });
  });

  it.each([
    [{ ref: { branch: 'main' } }, 'sources[0].ref: an OCI source follows a tag, a semver range or a digest'],
    [{ url: 'oci://registry.example.com/Apps' }, 'sources[0].url: the OCI URL "Apps" is not a repository name'],
    [{ oci: { insecure: true } }, 'sources[0].url: the OCI URL insecure (plain http) is allowed only for a loopback registry'],
    [{ verify: { openpgpKeys: ['x'] } }, 'sources[0].verify: commit signatures are for Git sources; an OCI source names its cosign keys in oci.cosignKeys'],
    [{ oci: { cosignKeys: ['not a key'] } }, 'sources[0].oci.cosignKeys: is not a PEM public key'],
    [{ auth: { sshPrivateKey: 'k', knownHosts: 'h' } }, 'sources[0].auth: an OCI registry logs in with a username and password'],
  ])('refuses %j', (fields, message) => {
    expect(() => parseSourceSpec(oci(fields), 'sources[0]')).toThrow(message);
  });

  it('refuses a digest or an oci block on a Git source', () => {
    const git = { name: 'apps', url: 'https://git.example.com/apps.git', intervalMs: 60_000 };
    expect(() => parseSourceSpec({ ...git, ref: { digest: `sha256:${'a'.repeat(64)}` } }, 's')).toThrow('s.ref.digest: is for oci:// sources only');
    expect(() => parseSourceSpec({ ...git, ref: { branch: 'main' }, oci: {} }, 's')).toThrow('s.oci: is for oci:// sources only');
  });
});
