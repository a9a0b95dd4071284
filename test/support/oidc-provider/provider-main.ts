// A real OpenID provider for the sign-in suites: panva's oidc-provider (OpenID-certified), in a
// process of its own: `node --import tsx provider-main.ts '<json ProviderSetup>'`. It prints its
// port, then takes control messages over IPC (a user's groups, one misbehaving ID token).
import { createServer } from 'node:http';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { ProviderControl, ProviderSetup } from './provider-setup';

const setup = JSON.parse(process.argv[2] ?? '{}') as ProviderSetup;
const users = new Map(Object.entries(setup.users).map(([id, user]) => [id, { ...user }]));
// The next ID token's misbehaviour, if any: used once, then the provider behaves again.
let misbehave: ProviderControl['misbehave'];

const server = createServer();
const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
const issuer = `http://127.0.0.1:${port}`;

const configuration: Configuration = {
  clients: [
    {
      client_id: setup.dashboard.clientId, client_secret: setup.dashboard.clientSecret,
      redirect_uris: setup.dashboard.redirectUris, post_logout_redirect_uris: setup.dashboard.postLogoutRedirectUris,
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    },
    {
      // The CLI: a public native client; a loopback redirect matches on any port (RFC 8252).
      client_id: setup.cli.clientId, application_type: 'native', token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'], response_types: ['code'],
      grant_types: ['authorization_code', 'refresh_token', ...(setup.deviceFlow === false ? [] : ['urn:ietf:params:oauth:grant-type:device_code'])],
    },
    {
      // Another application of the same provider: its tokens are not for Tidemark.
      client_id: 'other-app', client_secret: 'other-app-secret-0123456789abcdef', redirect_uris: ['http://127.0.0.1:9/callback'],
      grant_types: ['authorization_code'], response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'], groups: ['groups'] },
  // Scope claims go into the ID token, as Dex and most providers put groups there.
  conformIdTokenClaims: false,
  features: {
    devInteractions: { enabled: true },
    deviceFlow: { enabled: setup.deviceFlow !== false },
    revocation: { enabled: true },
    rpInitiatedLogout: { enabled: true },
  },
  pkce: { required: () => true },
  cookies: { keys: ['oidc-test-cookie-key-0123456789abcdef'] },
  ttl: { IdToken: 600, AccessToken: 600, RefreshToken: 86_400, Session: 3600, Interaction: 600, Grant: 3600, DeviceCode: 600 },
  // First-party clients: every scope asked for is granted without a consent screen.
  async loadExistingGrant(ctx: KoaContextWithOIDC) {
    const accountId = ctx.oidc.session?.accountId;
    const client = ctx.oidc.client;
    if (!accountId || !client) return undefined;
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
    grant.addOIDCScope(String(ctx.oidc.params?.scope ?? 'openid'));
    await grant.save();
    return grant;
  },
  async issueRefreshToken(_ctx, client, code) {
    return client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access');
  },
  async findAccount(_ctx, id) {
    const user = users.get(id);
    if (!user) return undefined;
    return {
      accountId: id,
      // Read at each token: groups changed over IPC apply at the next sign-in.
      claims: () => ({ sub: id, email: user.email, preferred_username: id, name: id, ...(user.groups ? { groups: [...user.groups] } : {}) }),
    };
  },
};

const provider = new Provider(issuer, configuration);

// A misbehaving provider, on request: the ID token is issued for another client (a token for
// another audience), already expired, or with a broken signature. Everything else about it (signature, nonce) is genuine.
const issue = provider.IdToken.prototype.issue;
provider.IdToken.prototype.issue = async function issueMisbehaving(this: InstanceType<typeof provider.IdToken>, options: Parameters<typeof issue>[0]) {
  const use = (options as { use?: string } | undefined)?.use;
  if (use === 'idtoken' && misbehave) {
    const kind = misbehave;
    misbehave = undefined;
    if (kind === 'audience') (this as unknown as { client: unknown }).client = await provider.Client.find('other-app');
    if (kind === 'expired') {
      const now = Math.floor(Date.now() / 1000);
      this.set('iat', now - 1200);
      return issue.call(this, { ...options, expiresAt: now - 600 } as Parameters<typeof issue>[0]);
    }
    if (kind === 'signature') {
      // One character of the signature changed: the claims are right, the signature is not.
      const token = String(await issue.call(this, options));
      const at = token.lastIndexOf('.') + 10;
      return `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    }
  }
  return issue.call(this, options);
};

server.on('request', provider.callback());
process.stdout.write(`${port}\n`);

process.on('message', (message: ProviderControl) => {
  if (message.groups) {
    const user = users.get(message.groups.user);
    if (user) user.groups = message.groups.groups;
  }
  if (message.misbehave) misbehave = message.misbehave;
  process.send?.({ done: true });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
