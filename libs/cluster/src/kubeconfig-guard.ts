import { KubeConfig, type User } from '@kubernetes/client-node';
import { parse } from 'yaml';

/** The pod's projected ServiceAccount token, as KubeConfig.loadFromCluster names it. */
const inClusterTokenPath = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** What client-node's authenticators (ExecAuth, GCP, Azure, OIDC, FileAuth, custom) have in common. */
interface Authenticator {
  isAuthProvider(user: User): unknown;
}

/**
 * refuseCommandRunningUsers throws unless no user in the kubeconfig can make the client run a
 * program or call out on its own. It decides by what @kubernetes/client-node would do, never by a
 * provider's name: a user is refused when it has an `exec` plugin, any `auth-provider`, or when any
 * of the client's own authenticators would act on it (ExecAuth runs `auth-provider.config.exec`
 * whatever the provider is called; gcp and azure run `cmd-path`; oidc calls a token endpoint). The
 * one exception is the user KubeConfig.loadFromCluster builds, matched exactly: an auth-provider
 * `tokenFile` whose config is the pod's own ServiceAccount token path and nothing else. Every user
 * is checked, not just the current one, so a kubeconfig cannot switch to one later.
 */
export function refuseCommandRunningUsers(config: KubeConfig, cluster: string, allowExecPlugins: boolean): void {
  if (allowExecPlugins) return;
  const authenticators = authenticatorsOf(config);
  for (const user of config.getUsers()) {
    if (user.exec) {
      throw new Error(`cluster ${cluster}: users[${user.name}].exec runs a credential plugin (${String((user.exec as { command?: unknown }).command ?? 'a command')}), which is refused unless allowExecPlugins is set for this cluster.`);
    }
    if (isInClusterUser(user)) continue;
    const provider = user.authProvider as { name?: unknown } | undefined | null;
    if (provider !== undefined && provider !== null) {
      throw new Error(`cluster ${cluster}: users[${user.name}].auth-provider (${typeof provider.name === 'string' ? provider.name : 'unnamed'}) is a legacy authenticator that can run a command or read local files, which is refused unless allowExecPlugins is set for this cluster. Use a token or client certificate.`);
    }
    // Belt and braces: an authenticator a later client-node adds, keyed on some other field.
    if (authenticators.some((authenticator) => Boolean(authenticator.isAuthProvider(user)))) {
      throw new Error(`cluster ${cluster}: users[${user.name}] would be authenticated by a client-node authenticator that can run a command or read local files, which is refused unless allowExecPlugins is set for this cluster. Use a token or client certificate.`);
    }
  }
}

/** isInClusterUser is true only for exactly the auth-provider loadFromCluster writes: it re-reads the pod's own token and runs nothing. */
function isInClusterUser(user: User): boolean {
  const provider = user.authProvider as Record<string, unknown> | undefined | null;
  if (typeof provider !== 'object' || provider === null) return false;
  if (!sameKeys(provider, ['config', 'name']) || provider.name !== 'tokenFile') return false;
  const providerConfig = provider.config as Record<string, unknown> | undefined | null;
  return typeof providerConfig === 'object' && providerConfig !== null && sameKeys(providerConfig, ['tokenFile']) && providerConfig.tokenFile === inClusterTokenPath;
}

function sameKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value).filter((key) => value[key] !== undefined).sort();
  return own.length === keys.length && own.every((key, index) => key === keys[index]);
}

/** authenticatorsOf reads the client's own list (private in its types), the list applyAuthorizationHeader searches. */
function authenticatorsOf(config: KubeConfig): Authenticator[] {
  const lists = config as unknown as { authenticators?: Authenticator[]; custom_authenticators?: Authenticator[] };
  return [...(lists.authenticators ?? []), ...(lists.custom_authenticators ?? [])];
}

const localFileFields = {
  users: ['token-file', 'client-certificate', 'client-key'],
  clusters: ['certificate-authority'],
} as const;

/**
 * loadSelfContainedKubeconfig loads a kubeconfig that came from outside the reconciler's own
 * configuration (a Secret). It must carry its credentials inline: a path would make the reconciler
 * read one of its own files (its ServiceAccount token, say) and send it to the server the
 * kubeconfig names. Paths, exec plugins and auth-providers are refused before anything is read.
 * Messages name the field, never its value.
 */
export function loadSelfContainedKubeconfig(text: string, where: string, allowExecPlugins = false): KubeConfig {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch {
    // The parser's message could quote the content; say only where.
    throw new Error(`${where}: the value is not a valid kubeconfig`);
  }
  refuseLocalFiles(raw, where);
  const config = new KubeConfig();
  try {
    config.loadFromString(text);
  } catch {
    throw new Error(`${where}: the value is not a valid kubeconfig`);
  }
  refuseCommandRunningUsers(config, where.replace(/^cluster /, ''), allowExecPlugins);
  return config;
}

function refuseLocalFiles(raw: unknown, where: string): void {
  for (const section of ['users', 'clusters'] as const) {
    const entries = (raw as Record<string, unknown> | null)?.[section];
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as { name?: unknown; user?: Record<string, unknown>; cluster?: Record<string, unknown> }[]) {
      const body = section === 'users' ? entry.user : entry.cluster;
      for (const field of localFileFields[section]) {
        if (body?.[field] !== undefined) {
          throw new Error(`${where}: ${section}[${String(entry.name)}].${field} names a file on the reconciler's disk; a kubeconfig in a Secret must carry its credentials inline (${field}-data or token).`);
        }
      }
      const providerConfig = (body?.['auth-provider'] as { config?: Record<string, unknown> } | undefined)?.config;
      if (providerConfig?.tokenFile !== undefined) {
        throw new Error(`${where}: ${section}[${String(entry.name)}].auth-provider.config.tokenFile names a file on the reconciler's disk, which is refused.`);
      }
    }
  }
}

/**
 * credentialsAreInline is true when the current user's credentials and its cluster's CA are all
 * written in the kubeconfig itself (data fields, a token, a password): no file to re-read, no
 * exec plugin or auth-provider, no authenticator of the client's that would act on the user. Then
 * what KubeConfig.applyToHTTPSOptions answers is the same on every call.
 */
export function credentialsAreInline(config: KubeConfig): boolean {
  const user = config.getCurrentUser();
  const cluster = config.getCurrentCluster();
  if (!user || !cluster || cluster.caFile || user.certFile || user.keyFile) return false;
  if (user.exec || user.authProvider) return false;
  return !authenticatorsOf(config).some((authenticator) => Boolean(authenticator.isAuthProvider(user)));
}
