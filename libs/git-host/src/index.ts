// libs/git-host owns what Tidemark tells a Git host: commit statuses (Gitea/Forgejo, GitHub, GitLab).
// It imports no other Tidemark library and talks only HTTP; tokens are handed in, never logged.

export { postCommitStatus, type CommitStatus, type CommitStatusState, type GitHostTarget, type GitHostProvider, type PostOptions, type PostResult } from './commit-status';
