/** ProviderUser is one account of the test provider; sign in with its id as the login name. */
export interface ProviderUser {
  email: string;
  /** Left out: the account has no groups claim at all. */
  groups?: string[];
}

/** ProviderSetup is what the test provider is started with (as JSON on its command line). */
export interface ProviderSetup {
  dashboard: { clientId: string; clientSecret: string; redirectUris: string[]; postLogoutRedirectUris: string[] };
  cli: { clientId: string };
  users: Record<string, ProviderUser>;
  /** @defaultValue true */
  deviceFlow?: boolean;
}

/** ProviderControl is one control message: a user's new groups, or one misbehaving ID token. */
export interface ProviderControl {
  groups?: { user: string; groups: string[] };
  misbehave?: 'audience' | 'expired' | 'signature';
}
