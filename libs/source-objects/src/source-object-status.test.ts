import { describe, expect, it } from 'vitest';
import { findCondition } from '@tidemark/contracts';
import { pruningStatus, stalledStatus, statusFromPoll } from './source-object-status';

const fetched = statusFromPoll({ state: 'ok', revision: 'a'.repeat(40), commitMessage: 'first settings', declaredObjects: 3 }, 1, {});

describe('statusFromPoll', () => {
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
