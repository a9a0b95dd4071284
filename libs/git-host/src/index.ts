// Owns: what Tidemark tells a Git host: commit statuses and pull-request comments (Gitea/Forgejo, GitHub,
//   GitLab). It talks HTTP; tokens are handed in when a request is made, never logged, stored or put in an
//   error.
// Entry points: postCommitStatus, StatusPoster, upsertPullRequestComment, waveStatuses (a rollout's waves as statuses).
// Records: the commit status record that lets replicas agree on which status to post
//   (commit-status:<source>:<revision>:<cluster>, commit-status-open:<source>:<cluster>).
// May import: @tidemark/contracts.

export { postCommitStatus, type CommitStatus, type CommitStatusState, type GitHostTarget, type GitHostProvider } from './commit-status';
export { type HostRequest, type PostOptions, type PostResult } from './host-request';
export { CommitStatusRecord, type CommitOnCluster, type ObjectProgress, type StatusClaim, type SupersededCommit } from './commit-status-record';
export { StatusPoster, type StatusPosterOptions } from './status-poster';
export { waveStatuses, type WaveStatus } from './rollout-wave-status';
export { upsertPullRequestComment, type PullRequestComment, type CommentResult } from './pull-request-comment';
