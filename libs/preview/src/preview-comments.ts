import type { ClusterConnection } from '@tidemark/cluster';
import type { Logger, PreviewReport } from '@tidemark/contracts';
import { targetOf, type GitHostConfig } from '@tidemark/git-host';
import { commentPreview } from './preview-comment';

/**
 * previewComments returns what a preview worker calls with each finished preview: a pull
 * request's report goes on the pull request as one comment, kept up to date, on the source's Git
 * host (gitHosts, unless `pullRequestComments: false`). A report with changes from units holding
 * sops files is commented only for a source in `trustedSources` (render.sops.trustedSources): a
 * pull request's readers are not the source's. Failures are logged, never thrown.
 */
export function previewComments(gitHosts: readonly GitHostConfig[], connectionFor: (cluster: string) => ClusterConnection, log: Logger, trustedSources: readonly string[] = []): ((report: PreviewReport) => Promise<void>) | undefined {
  const hosts = new Map(gitHosts.filter((host) => host.pullRequestComments).map((host) => [host.source, host]));
  if (hosts.size === 0) return undefined;
  return async (report) => {
    const host = hosts.get(report.source);
    if (!host || !report.pullRequest) return;
    if (report.decryptedUnits?.length && !trustedSources.includes(report.source)) {
      log.info({ source: report.source, pullRequest: report.pullRequest.number, units: report.decryptedUnits }, 'preview comment withheld: the changes come from units with sops files, and the source is not in render.sops.trustedSources');
      return;
    }
    const target = await targetOf(host, connectionFor);
    const result = await commentPreview(report, target, host.dashboardUrl ? { dashboardUrl: host.dashboardUrl } : {});
    const fields = { source: report.source, pullRequest: report.pullRequest.number, attempts: result?.attempts, status: result?.status };
    if (result?.ok) log.info({ ...fields, action: result.action }, 'preview comment posted');
    else log.warn({ ...fields, err: result?.error }, 'preview comment not posted');
  };
}
