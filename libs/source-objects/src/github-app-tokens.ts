import { createAppAuth } from '@octokit/auth-app';
import { request } from '@octokit/request';
import { TransientError } from '@tidemark/contracts';
import type { GitHubAppKeys } from './secret-credentials';

export interface GitHubAppTokensOptions {
  /** Refresh a token this long before it expires. @defaultValue 300000 (five minutes) */
  refreshBeforeMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

/**
 * GitHubAppTokens mints installation tokens for a GitHub App with @octokit/auth-app, keeps the
 * current one, and mints the next one before it expires (tokens last an hour). Concurrent asks
 * share one request. The private key and tokens never appear in errors.
 */
export class GitHubAppTokens {
  private readonly auth: ReturnType<typeof createAppAuth>;
  private current: { token: string; expiresAt: number } | undefined;
  private minting: Promise<string> | undefined;
  private installationId: number | undefined;
  private readonly refreshBeforeMs: number;
  private readonly now: () => number;

  constructor(private readonly keys: GitHubAppKeys, options: GitHubAppTokensOptions = {}) {
    this.refreshBeforeMs = options.refreshBeforeMs ?? 300_000;
    this.now = options.now ?? Date.now;
    this.auth = createAppAuth({
      appId: keys.appId,
      privateKey: keys.privateKey,
      request: request.defaults({ baseUrl: keys.baseUrl ?? 'https://api.github.com' }),
    });
    if (keys.installationId) this.installationId = Number(keys.installationId);
  }

  /** token gives a token valid for at least refreshBeforeMs. */
  async token(): Promise<string> {
    if (this.current && this.current.expiresAt - this.now() > this.refreshBeforeMs) return this.current.token;
    this.minting ??= this.mint().finally(() => (this.minting = undefined));
    return this.minting;
  }

  private async mint(): Promise<string> {
    try {
      const installationId = this.installationId ?? (this.installationId = await this.lookUpInstallation());
      // refresh: the library's own cache would hand back a token that is about to expire.
      const minted = await this.auth({ type: 'installation', installationId, refresh: true });
      this.current = { token: minted.token, expiresAt: Date.parse(minted.expiresAt) };
      return minted.token;
    } catch (error) {
      if (error instanceof TransientError) throw error;
      const status = (error as { status?: number }).status;
      throw new TransientError('GitHubAppTokenFailed', `Could not mint a GitHub App installation token for app ${this.keys.appId}${status ? ` (HTTP ${status})` : ''}; check the app id, installation and private key.`);
    }
  }

  /** lookUpInstallation finds the installation on the owner (an organisation or user), as Flux 2.8 does. */
  private async lookUpInstallation(): Promise<number> {
    const { token } = await this.auth({ type: 'app' });
    const answer = await request('GET /app/installations', { baseUrl: this.keys.baseUrl ?? 'https://api.github.com', headers: { authorization: `bearer ${token}` }, per_page: 100 });
    const owner = this.keys.installationOwner?.toLowerCase();
    const found = answer.data.find((installation) => installation.account && 'login' in installation.account && installation.account.login.toLowerCase() === owner);
    if (!found) throw new TransientError('GitHubAppNotInstalled', `GitHub App ${this.keys.appId} is not installed on ${this.keys.installationOwner}.`);
    return found.id;
  }
}
