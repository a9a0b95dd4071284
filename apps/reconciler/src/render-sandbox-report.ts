import type { Logger } from 'pino';
import { canIsolateNetwork } from '@tidemark/render';

/**
 * reportRenderSandbox says at start whether renderers run isolated, as the metric
 * tidemark_render_sandbox_isolated (1 or 0) and, when they do not, as a warning: without user and
 * network namespaces (the RuntimeDefault seccomp profile refuses them) a renderer still gets a
 * clean environment and a proxy that refuses every connection, but it runs as this process's user,
 * so a renderer that is made to read files could read what this process may read.
 */
export function reportRenderSandbox(log: Pick<Logger, 'warn' | 'info'>, metrics: { renderSandbox(isolated: boolean): void }, isolated = canIsolateNetwork()): boolean {
  metrics.renderSandbox(isolated);
  if (isolated) {
    log.info({ renderSandbox: 'isolated' }, 'renderers run in user and network namespaces of their own');
    return true;
  }
  log.warn({ renderSandbox: 'environment-only' },
    'RENDER SANDBOX NOT ISOLATED: user namespaces are refused here (by the seccomp profile, e.g. RuntimeDefault, or the kernel), ' +
    'so kustomize, helm, sops and render plugins run without network and user namespaces of their own, as this process\'s user: ' +
    'they get a clean environment and a proxy that refuses every connection, but could read the files this process may read. ' +
    'Run the reconciler with a seccomp profile that allows unshare(CLONE_NEWUSER|CLONE_NEWNET) (deploy/seccomp/tidemark-render.json), ' +
    'or set render.enabled: false if no source renders. tidemark_render_sandbox_isolated is 0.');
  return false;
}
