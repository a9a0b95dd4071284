import type { PreviewReport } from '@tidemark/contracts';
import { upsertPullRequestComment, type CommentResult, type GitHostTarget, type PostOptions } from '@tidemark/git-host';
import { previewMarkdown } from './preview-markdown';

/**
 * commentPreview puts a pull request's preview on the pull request as one comment, and updates
 * that comment (found by a hidden marker naming the source) on the next preview of the same pull
 * request instead of adding another. `dashboardUrl` adds the link to the preview's page. A report
 * without a pull request is not commented on.
 */
export async function commentPreview(report: PreviewReport, target: GitHostTarget, options: { dashboardUrl?: string; post?: PostOptions } = {}): Promise<CommentResult | undefined> {
  if (!report.pullRequest) return undefined;
  const link = options.dashboardUrl ? `${options.dashboardUrl}/previews/${encodeURIComponent(report.source)}/${report.ref.split('/').map(encodeURIComponent).join('/')}` : undefined;
  return upsertPullRequestComment(target, { number: report.pullRequest.number, body: previewMarkdown(report, link), marker: `preview:${report.source}` }, options.post);
}
