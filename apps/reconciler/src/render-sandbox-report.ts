import type { Logger } from 'pino';
import { canHideCredentials, canIsolateNetwork } from '@tidemark/render';

/** RenderIsolation is what the kernel and the seccomp profile let the render sandbox do. */
export interface RenderIsolation {
  /** User and network namespaces: tidemark_render_sandbox_isolated 1. */
  network: boolean;
  /** A mount namespace too: credential folders and the reconciler's /proc are covered. */
  credentials: boolean;
}

/**
 * reportRenderSandbox says at start whether renderers run isolated, as the metric
 * tidemark_render_sandbox_isolated (1 or 0) and, when they do not, as a warning: without user and
 * network namespaces (the RuntimeDefault seccomp profile refuses them) a renderer still gets a
 * clean environment and a proxy that refuses every connection, but it runs as this process's user,
 * so a renderer that is made to read files could read what this process may read.
 */
export function reportRenderSandbox(log: Pick<Logger, 'warn' | 'info'>, metrics: { renderSandbox(isolated: boolean): void }, isolation: RenderIsolation = currentIsolation()): boolean {
  metrics.renderSandbox(isolation.network);
  if (isolation.network && isolation.credentials) {
    log.info({ renderSandbox: 'isolated' }, 'renderers run in user, network and mount namespaces of their own, without the pod\'s credentials');
    return true;
  }
  if (isolation.network) {
    log.warn({ renderSandbox: 'network-only' },
      'RENDER SANDBOX PARTLY ISOLATED: renderers have no network, but mount namespaces are refused here, so they could read the files this process may read ' +
      '(its ServiceAccount token, credentials, /proc). Allow mount in the seccomp profile (deploy/seccomp/tidemark-render.json).');
    return true;
  }
  log.warn({ renderSandbox: 'environment-only' },
    'RENDER SANDBOX NOT ISOLATED: user namespaces are refused here (by the seccomp profile, e.g. RuntimeDefault, or the kernel), ' +
    'so kustomize, helm, sops and render plugins run without network and user namespaces of their own, as this process\'s user: ' +
    'they get a clean environment and a proxy that refuses every connection, but could read the files this process may read ' +
    '(its ServiceAccount token, credentials, /proc). Run the reconciler with a seccomp profile that allows unshare and mount in a user namespace ' +
    '(deploy/seccomp/tidemark-render.json), or set render.enabled: false if no source renders. tidemark_render_sandbox_isolated is 0.');
  return false;
}

function currentIsolation(): RenderIsolation {
  return { network: canIsolateNetwork(), credentials: canHideCredentials() };
}
