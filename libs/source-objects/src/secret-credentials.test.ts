import { describe, expect, it } from 'vitest';
import { credentialsFromSecret } from './secret-credentials';

const data = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));

describe('credentialsFromSecret', () => {
  it('reads the keys Flux uses', () => {
    expect(credentialsFromSecret(data({ username: 'bot', password: 'hunter22\n' }), 'Secret a/b')).toEqual({ auth: { username: 'bot', password: 'hunter22' } });
    expect(credentialsFromSecret(data({ bearerToken: 'tok' }), 'Secret a/b')).toEqual({ auth: { bearerToken: 'tok' } });
    expect(credentialsFromSecret(data({ extraHeader: 'Authorization: Basic eDp5' }), 'Secret a/b')).toEqual({ auth: { extraHeader: 'Authorization: Basic eDp5' } });
    expect(credentialsFromSecret(data({ githubAppID: '12', githubAppInstallationOwner: 'acme', githubAppPrivateKey: 'KEY' }), 'Secret a/b')).toEqual({ githubApp: { appId: '12', installationOwner: 'acme', privateKey: 'KEY' } });
  });

  it('reads an SSH deploy key as Flux keeps it: identity, known_hosts, password as its passphrase', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n';
    expect(credentialsFromSecret(data({ identity: key, 'identity.pub': 'ssh-ed25519 AAAA', known_hosts: 'github.com ssh-ed25519 AAAA\n' }), 'Secret a/b'))
      .toEqual({ auth: { sshPrivateKey: key.trim(), knownHosts: 'github.com ssh-ed25519 AAAA' } });
    expect(credentialsFromSecret(data({ identity: key, known_hosts: 'h ssh-ed25519 AAAA', password: 'pass phrase' }), 'Secret a/b'))
      .toEqual({ auth: { sshPrivateKey: key.trim(), knownHosts: 'h ssh-ed25519 AAAA', passphrase: 'pass phrase' } });
    expect(() => credentialsFromSecret(data({ identity: key }), 'Secret a/b')).toThrow('Secret a/b: has identity but no known_hosts; SSH host keys are pinned from known_hosts, never trusted on first use');
  });

  it('names the Secret and keys of a mistake, never a value', () => {
    expect(() => credentialsFromSecret(data({ password: 'sekrit-value' }), 'Secret a/b')).toThrow('Secret a/b: has password but no username');
    expect(() => credentialsFromSecret(data({ other: 'sekrit-value' }), 'Secret a/b')).toThrow(/^Secret a\/b: holds none of/);
    expect(() => credentialsFromSecret(data({ extraHeader: 'no colon sekrit' }), 'Secret a/b')).toThrow(/extraHeader must be one "Name: value" line$/);
    expect(() => credentialsFromSecret(data({ githubAppID: '1', githubAppPrivateKey: 'K', githubAppInstallationID: '2', githubAppBaseURL: 'http://evil.example.com' }), 'Secret a/b')).toThrow(/githubAppBaseURL must use https/);
  });
});
