import { describe, expect, it } from 'vitest';
import { markFailed, markFailure, markProgressing, markReady, markStalled, setCondition, type Condition } from './conditions';
import { failureCategories, type FailureCategory } from './errors';
import { settlementOf, verdictOf, type Settlement, type Verdict, type VerdictInput, type VerdictState } from './verdict';

const now = new Date('2026-12-01T00:00:00Z');
const input = (reason: string) => ({ reason, message: `${reason} message.` });
const ready = (status: Condition['status'], reason: string, conditions: Condition[] = []) => setCondition(conditions, { type: 'Ready', status, observedGeneration: 1, ...input(reason) }, now);
const reconciling = (conditions: Condition[], reason: string) => setCondition(conditions, { type: 'Reconciling', status: 'True', observedGeneration: 1, ...input(reason) }, now);

/** A run that failed as the pipeline records it: conditions by category, and the failure summary. */
function failed(category: FailureCategory, code: string): VerdictInput {
  return { conditions: markFailure(markReady([], 1, input('ReconciliationSucceeded'), now), 2, category, input(code), now), failure: { category, code } };
}

const expectedOfCategory: Record<FailureCategory, VerdictState> = { invalid: 'Stalled', forbidden: 'Failed', waiting: 'Waiting', transient: 'Failed', internal: 'Failed' };

describe('verdictOf', () => {
  const cases: ReadonlyArray<[string, VerdictInput, Verdict]> = [
    // Every failure category, as the pipeline records it.
    ...failureCategories.map((category): [string, VerdictInput, Verdict] => [`a ${category} failure`, failed(category, `Code${category}`), { state: expectedOfCategory[category], reason: `Code${category}`, message: `Code${category} message.` }]),
    // Failures whose reason decides.
    ['a dependency that failed (NotReadyError, transient): waiting, not an error', failed('transient', 'DependencyFailed'), { state: 'Waiting', reason: 'DependencyFailed', message: 'DependencyFailed message.' }],
    ['a dependency not ready yet', failed('waiting', 'DependencyNotReady'), { state: 'Waiting', reason: 'DependencyNotReady', message: 'DependencyNotReady message.' }],
    ['a dependency cycle', failed('waiting', 'DependencyCycle'), { state: 'Waiting', reason: 'DependencyCycle', message: 'DependencyCycle message.' }],
    ['a mass prune awaiting confirmation', failed('waiting', 'PruneAwaitingConfirmation'), { state: 'Waiting', reason: 'PruneAwaitingConfirmation', message: 'PruneAwaitingConfirmation message.' }],
    ['a terminal failure of another category', { conditions: markStalled([], 1, input('Forbidden'), now), failure: { category: 'forbidden', code: 'Forbidden' } }, { state: 'Stalled', reason: 'Forbidden', message: 'Forbidden message.' }],
    ['a failure while its cluster is unavailable', { conditions: reconciling(ready('Unknown', 'ClusterUnavailable', markFailed([], 1, input('ApplyFailed'), now)), 'ClusterUnavailable'), failure: { category: 'transient', code: 'ApplyFailed' } }, { state: 'Failed', reason: 'ApplyFailed', message: 'ClusterUnavailable message.' }],
    // The conditions alone.
    ['Ready', { conditions: markReady([], 1, input('ReconciliationSucceeded'), now) }, { state: 'Ready', reason: 'ReconciliationSucceeded', message: 'ReconciliationSucceeded message.' }],
    ['progressing (health pending)', { conditions: markProgressing([], 1, input('HealthCheckPending'), now) }, { state: 'Reconciling', reason: 'HealthCheckPending', message: 'HealthCheckPending message.' }],
    ['Ready=False HealthCheckPending without Reconciling', { conditions: ready('False', 'HealthCheckPending') }, { state: 'Reconciling', reason: 'HealthCheckPending', message: 'HealthCheckPending message.' }],
    ['Ready=False Progressing', { conditions: ready('False', 'Progressing') }, { state: 'Reconciling', reason: 'Progressing', message: 'Progressing message.' }],
    ['a failed health check (looked at again)', { conditions: markFailed([], 1, input('HealthCheckFailed'), now) }, { state: 'Failed', reason: 'HealthCheckFailed', message: 'HealthCheckFailed message.' }],
    ['Stalled=True', { conditions: markStalled(markReady([], 1, input('ReconciliationSucceeded'), now), 2, input('ValidationFailed'), now) }, { state: 'Stalled', reason: 'ValidationFailed', message: 'ValidationFailed message.' }],
    ['Ready=False DependencyFailed without a failure', { conditions: ready('False', 'DependencyFailed') }, { state: 'Waiting', reason: 'DependencyFailed', message: 'DependencyFailed message.' }],
    ['Ready=False DependencyNotReady without a failure', { conditions: ready('False', 'DependencyNotReady') }, { state: 'Waiting', reason: 'DependencyNotReady', message: 'DependencyNotReady message.' }],
    ['Ready=False Suspended', { conditions: ready('False', 'Suspended') }, { state: 'Waiting', reason: 'Suspended', message: 'Suspended message.' }],
    ['Ready=False of any other reason', { conditions: ready('False', 'ApplyFailed') }, { state: 'Failed', reason: 'ApplyFailed', message: 'ApplyFailed message.' }],
    ['its cluster unavailable', { conditions: reconciling(ready('Unknown', 'ClusterUnavailable', markReady([], 1, input('ReconciliationSucceeded'), now)), 'ClusterUnavailable') }, { state: 'Reconciling', reason: 'ClusterUnavailable', message: 'ClusterUnavailable message.' }],
    ['Ready=Unknown', { conditions: ready('Unknown', 'Unknown') }, { state: 'Unknown', reason: 'Unknown', message: 'Unknown message.' }],
    ['no conditions', { conditions: [] }, { state: 'Unknown', reason: '', message: 'No run has recorded a Ready condition yet.' }],
  ];

  it.each(cases)('%s', (_name, record, verdict) => {
    expect(verdictOf(record)).toEqual(verdict);
  });

  // Where each case leaves a change (a commit status reads this): only Ready is done; Stalled and a failed health check are failed.
  const settlements: Record<string, Settlement> = {
    'a invalid failure': 'failed', 'a forbidden failure': 'pending', 'a waiting failure': 'pending', 'a transient failure': 'pending', 'a internal failure': 'pending',
    'a dependency that failed (NotReadyError, transient): waiting, not an error': 'pending', 'a dependency not ready yet': 'pending', 'a dependency cycle': 'pending',
    'a mass prune awaiting confirmation': 'pending', 'a terminal failure of another category': 'failed', 'a failure while its cluster is unavailable': 'pending',
    'Ready': 'done', 'progressing (health pending)': 'pending', 'Ready=False HealthCheckPending without Reconciling': 'pending', 'Ready=False Progressing': 'pending',
    'a failed health check (looked at again)': 'failed', 'Stalled=True': 'failed', 'Ready=False DependencyFailed without a failure': 'pending',
    'Ready=False DependencyNotReady without a failure': 'pending', 'Ready=False Suspended': 'pending', 'Ready=False of any other reason': 'pending',
    'its cluster unavailable': 'pending', 'Ready=Unknown': 'pending', 'no conditions': 'pending',
  };
  it.each(cases)('settles %s', (name, record) => {
    expect(settlements[name], `no settlement listed for "${name}"`).toBeDefined();
    expect(settlementOf(verdictOf(record))).toBe(settlements[name]);
  });
});
