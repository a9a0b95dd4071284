import { TerminalError } from '@tidemark/contracts';
import type { SourceAuth } from '@tidemark/git-source';

/** GitHubAppKeys identify a GitHub App installation; the key never leaves this process. */
export interface GitHubAppKeys {
  readonly appId: string;
  readonly privateKey: string;
  /** The installation; without it, the one installed on `installationOwner` is looked up. */
  readonly installationId?: string;
  readonly installationOwner?: string;
  /** API root for GitHub Enterprise Server or a test server. @defaultValue https://api.github.com */
  readonly baseUrl?: string;
}

/** SecretCredentials are Git credentials read from a Secret: fixed ones, or a GitHub App that mints tokens. */
export type SecretCredentials = { readonly auth: SourceAuth } | { readonly githubApp: GitHubAppKeys };

/** secretCredentialKeys says which keys a Source's secretRef Secret may hold, for messages. */
export const secretCredentialKeys = 'the keys username and password, or bearerToken, or extraHeader, or githubAppID with githubAppPrivateKey and githubAppInstallationID (or githubAppInstallationOwner), or (for an SSH URL) identity and known_hosts with password as the key\'s passphrase';

/**
 * credentialsFromSecret reads a Secret's data (base64, as the API gives it) with the keys Flux
 * uses: username and password; bearerToken; extraHeader; or githubAppID, githubAppPrivateKey and
 * githubAppInstallationID or githubAppInstallationOwner (githubAppBaseURL optional); or an SSH
 * deploy key: identity (the private key), known_hosts (the pinned host keys, required) and password
 * (the key's passphrase, optional). Messages name the Secret and keys, never a value.
 */
export function credentialsFromSecret(data: Readonly<Record<string, string>> | undefined, where: string): SecretCredentials {
  const value = (key: string): string | undefined => {
    const encoded = data?.[key];
    return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8').trim();
  };
  const appId = value('githubAppID');
  if (appId !== undefined) return { githubApp: githubAppKeys(appId, value, where) };
  const identity = value('identity');
  if (identity !== undefined) return { auth: deployKey(identity, value, where) };
  const username = value('username');
  const password = value('password');
  if (password !== undefined) {
    if (!username) throw new TerminalError('SecretInvalid', `${where}: has password but no username`);
    return { auth: { username, password } };
  }
  const bearerToken = value('bearerToken');
  if (bearerToken) return { auth: { bearerToken } };
  const extraHeader = value('extraHeader');
  if (extraHeader) {
    if (!/^[A-Za-z0-9-]+:[^\r\n]+$/.test(extraHeader)) throw new TerminalError('SecretInvalid', `${where}: extraHeader must be one "Name: value" line`);
    return { auth: { extraHeader } };
  }
  throw new TerminalError('SecretInvalid', `${where}: holds none of ${secretCredentialKeys}`);
}

/** deployKey reads an SSH deploy key as Flux keeps it; the host keys are pinned, never trusted on first use. */
function deployKey(identity: string, value: (key: string) => string | undefined, where: string): SourceAuth {
  const knownHosts = value('known_hosts');
  if (!identity) throw new TerminalError('SecretInvalid', `${where}: identity is empty`);
  if (!knownHosts) throw new TerminalError('SecretInvalid', `${where}: has identity but no known_hosts; SSH host keys are pinned from known_hosts, never trusted on first use`);
  const passphrase = value('password');
  return { sshPrivateKey: identity, knownHosts, ...(passphrase ? { passphrase } : {}) };
}

function githubAppKeys(appId: string, value: (key: string) => string | undefined, where: string): GitHubAppKeys {
  const privateKey = value('githubAppPrivateKey');
  if (!privateKey) throw new TerminalError('SecretInvalid', `${where}: has githubAppID but no githubAppPrivateKey`);
  const installationId = value('githubAppInstallationID');
  const installationOwner = value('githubAppInstallationOwner');
  if (!installationId && !installationOwner) throw new TerminalError('SecretInvalid', `${where}: has githubAppID but neither githubAppInstallationID nor githubAppInstallationOwner`);
  const baseUrl = value('githubAppBaseURL');
  if (baseUrl && !/^https:\/\/|^http:\/\/(localhost|127\.[0-9.]+|\[::1\])(:|\/|$)/.test(baseUrl)) {
    throw new TerminalError('SecretInvalid', `${where}: githubAppBaseURL must use https (plain http only for loopback hosts)`);
  }
  return { appId, privateKey, ...(installationId ? { installationId } : {}), ...(installationOwner ? { installationOwner } : {}), ...(baseUrl ? { baseUrl } : {}) };
}
