import { readSourceStatus, revisionFor, messageOf, type PreviewJob, type PreviewReport, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import type { ClusterTarget } from '@tidemark/placement';
import { previewRevision, type PreviewDependencies, type PreviewSource } from './preview-revision';
import { writePreviewReport } from './preview-record';

/** PreviewHead is a source following the previewed ref, opened and polled: its revision is the ref's commit. */
export interface PreviewHead {
  source: PreviewSource;
  revision: string;
  close(): Promise<void>;
}

/** PreviewSourceHandle is one configured source: as it is (the base), and following another ref. */
export interface PreviewSourceHandle {
  base: PreviewSource;
  /** Opens the same repository at a branch or commit; throws (with a message for the user) when the ref is not there. */
  openHead(ref: string): Promise<PreviewHead>;
}

/** PreviewJobDependencies: where reports go, the sources by name, the clusters and the pipeline's readers. */
export interface PreviewJobDependencies {
  redis: RedisClient;
  keys: RecordKeys;
  sourceFor(name: string): PreviewSourceHandle | undefined;
  clusters: readonly ClusterTarget[];
  render: PreviewDependencies['render'];
}

/**
 * runPreviewJob runs one queued preview: it marks the record running, compares the ref's commit
 * with the source's current revision through previewRevision, and stores the report. A preview
 * that cannot run (unknown source, missing ref, a source never polled) is stored as failed with
 * the reason; an unexpected error is stored too and rethrown, so the queue retries it. A pull
 * request is previewed at its head commit (see headRefOf), never at a branch of the same name.
 */
export async function runPreviewJob(job: PreviewJob, deps: PreviewJobDependencies): Promise<PreviewReport> {
  const requested: PreviewReport = {
    source: job.source, ref: job.ref, state: 'running', trigger: job.trigger, requestedAt: job.requestedAt, changes: [],
    ...(job.pullRequest ? { pullRequest: job.pullRequest } : {}),
  };
  await writePreviewReport(deps.redis, deps.keys, requested);
  const failed = async (error: string) => {
    const report: PreviewReport = { ...requested, state: 'failed', error, finishedAt: new Date().toISOString() };
    await writePreviewReport(deps.redis, deps.keys, report);
    return report;
  };
  const handle = deps.sourceFor(job.source);
  if (!handle) return failed(`source "${job.source}" is not configured in this reconciler`);
  const baseRevision = revisionFor(await readSourceStatus(deps.redis, deps.keys, job.source));
  if (!baseRevision) return failed(`source "${job.source}" has not been polled yet: there is nothing to compare the ref with`);
  const wanted = headRefOf(job);
  if ('refused' in wanted) return failed(wanted.refused);
  let head: PreviewHead;
  try {
    head = await handle.openHead(wanted.ref);
  } catch (error) {
    return failed(`cannot read ${wanted.described} of source ${job.source}: ${messageOf(error)}`);
  }
  if (job.pullRequest && head.revision !== job.revision) {
    await head.close();
    return failed(`pull request #${job.pullRequest.number}: read ${head.revision.slice(0, 12)} where its head is ${job.revision?.slice(0, 12) ?? 'unknown'}; nothing was previewed`);
  }
  try {
    const report = await previewRevision(
      { source: job.source, ref: job.ref, baseRevision, revision: head.revision, requestedAt: job.requestedAt },
      { base: handle.base, head: head.source, clusters: deps.clusters, render: deps.render },
    );
    const done: PreviewReport = { ...requested, ...report, state: 'done' };
    await writePreviewReport(deps.redis, deps.keys, done);
    return done;
  } catch (error) {
    await failed(messageOf(error));
    throw error;
  } finally {
    await head.close();
  }
}

/**
 * headRefOf is what a preview reads. A pull request's branch may live in a fork, and the source's
 * repository may hold another branch of that name: so a pull request is read at the head commit
 * its webhook named, which the host keeps in the source's repository (refs/pull/N/head on GitHub
 * and Gitea, refs/merge-requests/N/head on GitLab), and refused without one. A branch or commit
 * asked for by itself is read as asked.
 */
export function headRefOf(job: Pick<PreviewJob, 'ref' | 'revision' | 'pullRequest'>): { ref: string; described: string } | { refused: string } {
  if (!job.pullRequest) return { ref: job.ref, described: job.ref };
  if (!job.revision) return { refused: `pull request #${job.pullRequest.number} names no head commit, and its branch ${job.ref} may be a fork's: it is previewed only at the commit its webhook names` };
  return { ref: job.revision, described: `pull request #${job.pullRequest.number} at ${job.revision.slice(0, 12)}` };
}
