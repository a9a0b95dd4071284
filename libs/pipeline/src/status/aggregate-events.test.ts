import { describe, expect, it } from 'vitest';
import { aggregateEvents } from './finalize';

describe('aggregateEvents', () => {
  it('says nothing for a run with nothing to say', () => {
    expect(aggregateEvents([])).toBeUndefined();
  });

  it('keeps a single event as it is', () => {
    const only = { type: 'Normal' as const, reason: 'Created', message: 'Deployment a/web created' };
    expect(aggregateEvents([only])).toEqual(only);
  });

  it('folds a change set into one Normal event named by the first reason, one line each', () => {
    const event = aggregateEvents([
      { type: 'Normal', reason: 'DriftHealed', message: 'Re-applied from Git: 1 field drifted.' },
      { type: 'Normal', reason: 'Updated', message: 'Deployment a/web configured' },
      { type: 'Normal', reason: 'Pruned', message: 'Service a/old pruned' },
    ]);
    expect(event).toEqual({ type: 'Normal', reason: 'DriftHealed', message: 'Re-applied from Git: 1 field drifted.\nDeployment a/web configured\nService a/old pruned' });
  });

  it('is a Warning, named by the first warning, when any part is one', () => {
    const event = aggregateEvents([
      { type: 'Normal', reason: 'Created', message: 'Deployment a/web created' },
      { type: 'Warning', reason: 'Orphaned', message: 'Not pruned: not ours' },
      { type: 'Warning', reason: 'DriftDetected', message: 'drifted' },
    ]);
    expect(event?.type).toBe('Warning');
    expect(event?.reason).toBe('Orphaned');
  });

  it('stays within the message limit and says how many lines it left out', () => {
    const events = Array.from({ length: 100 }, (_, index) => ({ type: 'Normal' as const, reason: 'Created', message: `ConfigMap a/config-${index} created from source at 0123456789ab` }));
    const event = aggregateEvents(events)!;
    expect(event.message.length).toBeLessThanOrEqual(1024);
    const shown = event.message.split('\n').length - 1;
    expect(event.message.endsWith(`… and ${100 - shown} more`)).toBe(true);
  });
});
