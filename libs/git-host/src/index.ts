// Owns: what Tidemark tells a Git host: commit statuses and pull-request comments (Gitea/Forgejo, GitHub,
//   GitLab). It talks HTTP; tokens are handed in when a request is made, never logged, stored or put in an
//   error.
// Entry points: postCommitStatus, StatusPoster, upsertPullRequestComment, waveStatuses (a rollout's waves as statuses).
// Records: the commit status record that lets replicas agree on which status to post
//   (commit-status:<source>:<revision>:<cluster>, commit-status-open:<source>:<cluster>).
// May import: @tidemark/contracts.

export { postCommitStatus, type CommitStatus, type CommitStatusState, type GitHostTarget, type GitHostProvider } from './commit-status';
export { type PostOptions, type PostResult } from './host-request';
export { CommitStatusRecord, type ObjectProgress, type StatusClaim } from './commit-status-record';
export { StatusPoster } from './status-poster';
export { waveStatuses } from './rollout-wave-status';
export { upsertPullRequestComment, type CommentResult } from './pull-request-comment';
