// The loopback stand-in for Gitea's API (host-stand-in.ts, provider `gitea`): statuses and
// pull-request comments kept in memory, every request checked against Gitea v1.26.0's own OpenAPI
// description (gitea-openapi-subset.json, copied from the module). It is not Gitea: the real one
// (test/gitea) runs in gitea.test.ts and webhook-preview-comment.test.ts; this stays where a test
// needs more than Gitea can be made to do (see test/gitea/README.md).
import { startHostStandIn, type HostStandIn } from './host-stand-in';

export type { StandInComment, StandInStatus } from './host-stand-in';
export type GiteaStandIn = HostStandIn;

/** startGiteaStandIn starts the stand-in answering as Gitea does, for requests carrying `token`. */
export function startGiteaStandIn(token: string): Promise<GiteaStandIn> {
  return startHostStandIn('gitea', token);
}
