import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { TerminalError } from '@tidemark/contracts';

/** RevisionGateOptions are what the gate needs from its source. */
export interface RevisionGateOptions {
  gitdir: string;
  /** The source and its ref in words, for refusals: `source apps (branch main)`. */
  describe: string;
  /** refreshHead asks the Git server where the configured ref points now and fetches that commit (only that ref). */
  refreshHead(): Promise<string>;
  hasCommit(oid: string): Promise<boolean>;
  /**
   * Every commit the cache holds is on the ref's history (an OCI source: each commit is an artifact
   * its ref once named, without parents), so a held revision that is not the head yields the head.
   * @defaultValue false: the revision must be an ancestor of the head
   */
  heldIsHistory?: boolean;
}

const revisionPattern = /^[0-9a-f]{40}$/;
// How far back a job's revision may lie behind the head and still be recognised as on the branch.
const historyDepth = 1_000;

/**
 * RevisionGate decides which revision a job may apply. A job (from Redis) only proposes: the
 * revision must be the head of the source's configured ref as this process saw it from the Git
 * server, or a commit behind that head on the ref's history, in which case the head itself is
 * applied, so an old revision never rolls anything back. Another branch's commit, a commit that
 * the ref never held, or one not in the local cache after refreshing the ref is refused; the gate
 * fetches the configured ref only, never what a job names.
 */
export class RevisionGate {
  private head: string | undefined;
  private refreshing: Promise<string> | undefined;

  constructor(private readonly options: RevisionGateOptions) {}

  /** seen records a head this process fetched itself (a poll). */
  seen(head: string): void {
    this.head = head;
  }

  /** admit returns the revision to apply for a job that names `revision`, or throws RevisionNotAdmitted. */
  async admit(revision: string): Promise<string> {
    if (!revisionPattern.test(revision)) throw new TerminalError('RevisionInvalid', `"${revision.slice(0, 80)}" is not a commit id`);
    if (revision === this.head) return revision;
    const known = this.head && (await this.behind(this.head, revision));
    if (known) return this.head!;
    const head = await this.refresh();
    if (revision === head) return head;
    if (await this.behind(head, revision)) return head;
    throw new TerminalError('RevisionNotAdmitted',
      `A job asked to apply revision ${revision.slice(0, 12)}, which is not on ${this.options.describe} (its head is ${head.slice(0, 12)}). ` +
      'Only the head of the configured ref is applied; the job was refused and nothing was fetched for it.');
  }

  /**
   * admitExact admits `revision` itself, not the head, when it is the head or on the ref's history
   * behind it: a rollout's target for one cluster (an older revision the rollout has not moved past
   * there yet, or the last good one an abort returns to). Anything else is refused as by admit.
   */
  async admitExact(revision: string): Promise<string> {
    if (!revisionPattern.test(revision)) throw new TerminalError('RevisionInvalid', `"${revision.slice(0, 80)}" is not a commit id`);
    if (revision === this.head || (this.head && (await this.behind(this.head, revision)))) return revision;
    const head = await this.refresh();
    if (revision === head || (await this.behind(head, revision))) return revision;
    throw new TerminalError('RevisionNotAdmitted',
      `A rollout asked to apply revision ${revision.slice(0, 12)}, which is not on ${this.options.describe} (its head is ${head.slice(0, 12)}). ` +
      'Only commits of the configured ref are applied; the job was refused and nothing was fetched for it.');
  }

  /**
   * warm asks the Git server where the configured ref points now and fetches that commit, as a
   * job's admission would (one refresh at a time): a hint that the ref moved lets the next job be
   * admitted from the cache. It fetches the configured ref only, never what the hint named.
   */
  async warm(): Promise<string> {
    return this.refresh();
  }

  /** behind tells whether `revision` is in the local cache and an ancestor of `head`. */
  private async behind(head: string, revision: string): Promise<boolean> {
    if (!(await this.options.hasCommit(revision))) return false;
    if (this.options.heldIsHistory) return true;
    try {
      return await git.isDescendent({ fs, gitdir: this.options.gitdir, oid: head, ancestor: revision, depth: historyDepth });
    } catch {
      // A shallow boundary or a missing parent: not shown to be on the branch.
      return false;
    }
  }

  private refresh(): Promise<string> {
    this.refreshing ??= this.options.refreshHead().then((head) => {
      this.head = head;
      return head;
    }).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }
}
