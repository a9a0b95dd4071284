import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';

/**
 * refuseCommandRunningUsers throws unless no user in the kubeconfig can make the client run a
 * program: `exec` credential plugins and every legacy `auth-provider` (gcp and azure run their
 * `cmd-path` through a shell; others call out to token endpoints), except the in-cluster loader's
 * `tokenFile`, which reads the pod's own ServiceAccount token. Every user
 * is checked, not just the current one, so a kubeconfig cannot switch to one later.
 */
export function refuseCommandRunningUsers(config: KubeConfig, cluster: string, allowExecPlugins: boolean): void {
  if (allowExecPlugins) return;
  for (const user of config.getUsers()) {
    if (user.exec) {
      throw new Error(`cluster ${cluster}: users[${user.name}].exec runs a credential plugin (${String((user.exec as { command?: unknown }).command ?? 'a command')}), which is refused unless allowExecPlugins is set for this cluster.`);
    }
    // The in-cluster loader's `tokenFile` provider only re-reads the pod's projected ServiceAccount
    // token (it rotates); it runs nothing. A kubeconfig from a Secret is refused any file path
    // separately (loadSelfContainedKubeconfig), so this opens no way to the reconciler's files.
    if (user.authProvider && (user.authProvider as { name?: unknown }).name !== 'tokenFile') {
      throw new Error(`cluster ${cluster}: users[${user.name}].auth-provider (${String((user.authProvider as { name?: unknown }).name ?? 'unnamed')}) is a legacy authenticator that can run a command or read local files, which is refused unless allowExecPlugins is set for this cluster. Use a token or client certificate.`);
    }
  }
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
