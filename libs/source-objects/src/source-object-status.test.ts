import { describe, expect, it } from 'vitest';
import { findCondition } from '@tidemark/contracts';
import { pruningStatus, stalledStatus, statusFromPoll } from './source-object-status';

const fetched = statusFromPoll({ state: 'ok', revision: 'a'.repeat(40), commitMessage: 'first settings', declaredObjects: 3 }, 1, {});

describe('statusFromPoll', () => {
  it('gives a refused Secret (not opted in) its own reason, and a Source without identity IdentityRequired', () => {
    const refused = statusFromPoll({ state: 'error', error: 'Secret not allowed: team-a/ci (spec.secretRef of Source team-a/app) has not opted in for Source team-a/app, …' }, 1, fetched);
    expect(findCondition(refused.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'SecretNotAllowed' });
    const anonymous = stalledStatus('Source team-a/app spec.serviceAccount: required; …', 1, {}, new Date(), 'IdentityRequired');
    expect(findCondition(anonymous.conditions, 'Stalled')).toMatchObject({ status: 'True', reason: 'IdentityRequired' });
  });

  it('shows the fetched revision, commit and object count of a successful poll', () => {
    expect(fetched).toMatchObject({ lastFetchedRevision: 'a'.repeat(40), lastCommitMessage: 'first settings', objects: 3 });
    expect(findCondition(fetched.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'ReconciliationSucceeded' });
  });

  it('keeps the last fetched revision while suspended, even when the record has none (a changed spec is diffed from nothing)', () => {
    // The status is written by server-side apply: a field left out is removed from the Source.
    const suspended = statusFromPoll({ state: 'suspended', polledAt: '2026-11-30T00:00:00Z' }, 2, fetched);
    expect(suspended).toMatchObject({ lastFetchedRevision: 'a'.repeat(40), lastCommitMessage: 'first settings', objects: 3 });
    expect(findCondition(suspended.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'Suspended', observedGeneration: 2 });
  });

  it('keeps the last fetched revision while waiting for the first poll of a changed spec, and after a failed poll', () => {
    expect(statusFromPoll({}, 3, fetched).lastFetchedRevision).toBe('a'.repeat(40));
    const failed = statusFromPoll({ state: 'error', error: 'Secret not found: team-a/git-auth' }, 3, fetched);
    expect(failed).toMatchObject({ lastFetchedRevision: 'a'.repeat(40), lastError: 'Secret not found: team-a/git-auth' });
  });

  it('shows a newer revision over the one it had, with nothing of the old one', () => {
    const newer = statusFromPoll({ state: 'ok', revision: 'b'.repeat(40), commitMessage: 'second' }, 1, fetched);
    expect(newer).toMatchObject({ lastFetchedRevision: 'b'.repeat(40), lastCommitMessage: 'second' });
    expect(newer.objects).toBeUndefined();
  });

  it('a stalled or deleting Source still shows what it fetched last', () => {
    expect(stalledStatus('bad spec', 4, fetched).lastFetchedRevision).toBe('a'.repeat(40));
    expect(pruningStatus(2, 4, fetched).lastFetchedRevision).toBe('a'.repeat(40));
  });
});

describe('pruningStatus', () => {
  it('says what a deleted Source waits for', () => {
    expect(findCondition(pruningStatus(2, 4, fetched).conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'Pruning', message: 'Deleting: pruning 2 object(s) this source applied before the Source goes.' });
  });

  it('names the first object it cannot prune, the failure, and what lets it go', () => {
    const forbidden = 'configmaps "legacy" is forbidden: User "system:serviceaccount:team-a:deployer" cannot get resource "configmaps" in API group "" in the namespace "team-b".';
    const blocked = [{ cluster: 'west', objectKey: 'core/ConfigMap/team-b/legacy', message: forbidden }, { cluster: 'east', objectKey: 'core/ConfigMap/team-b/legacy', message: forbidden }];
    const ready = findCondition(pruningStatus(3, 4, fetched, new Date(), blocked).conditions, 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'PruneBlocked' });
    expect(ready?.message).toBe(`Deleting: 3 object(s) this source applied are left, and 2 cannot be pruned: core/ConfigMap/team-b/legacy on cluster west: ${forbidden} (and 1 more) The Source stays until they are pruned: fix that, or annotate the Source tidemark.dev/prune: "false" to leave its objects in the cluster and let it go.`);
  });
});
