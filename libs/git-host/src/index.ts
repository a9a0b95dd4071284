// Owns: what Tidemark tells a Git host: commit statuses and pull-request comments (Gitea/Forgejo, GitHub,
//   GitLab). It talks HTTP; tokens are handed in when a request is made, never logged, stored or put in an
//   error.
// Entry points: createCommitStatuses (the reconciler's commit statuses as a part: pending when a poll queues a
//   commit's jobs, then success or failure from each run's record), createRolloutCommitStatuses (a rollout's
//   waves), gitHostsConfig (the gitHosts section of tidemark.yaml), targetOf (a host and its token),
//   postCommitStatus, StatusPoster, upsertPullRequestComment, waveStatuses. A token is read from its Secret
//   through libs/cluster; a host's API and repository are derived from its source's URL (libs/git-source).
// Records: the commit status record that lets replicas agree on which status to post
//   (commit-status:<source>:<revision>:<cluster>, commit-status-open:<source>:<cluster>).
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/git-source.

export { postCommitStatus, type CommitStatusState, type GitHostTarget } from './commit-status';
export { type PostOptions } from './host-request';
export { CommitStatusRecord } from './commit-status-record';
export { StatusPoster } from './status-poster';
export { waveStatuses } from './rollout-wave-status';
export { upsertPullRequestComment, type CommentResult } from './pull-request-comment';
export { createCommitStatuses, type CommitStatuses } from './commit-statuses';
export { createRolloutCommitStatuses } from './rollout-commit-statuses';
export { GitHostsInput, gitHostsConfig, type GitHostConfig } from './git-hosts-config';
export { targetOf } from './host-token';
