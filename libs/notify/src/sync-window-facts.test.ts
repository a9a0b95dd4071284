import { describe, expect, it } from 'vitest';
import { syncWindowFact } from './sync-window-facts';

const now = new Date('2026-03-31T08:00:00.000Z');
const hold = { description: 'deny window "office" until 16:00 Europe/Berlin' };

describe('syncWindowFact', () => {
  it('is news when a window starts holding a cluster, saying which and until when', () => {
    expect(syncWindowFact('prod', hold, now).eventFor(undefined)).toMatchObject({
      reason: 'SyncWindowHolding', severity: 'info', cluster: 'prod', involvedObject: { kind: 'Cluster', name: 'prod' },
      message: 'Cluster prod is held by its sync windows: deny window "office" until 16:00 Europe/Berlin. Nothing is applied or pruned there until they let go.',
    });
    expect(syncWindowFact('prod', hold, now).eventFor('Open')).toMatchObject({ reason: 'SyncWindowHolding' });
    expect(syncWindowFact('prod', hold, now).eventFor('Held')).toBeUndefined();
  });

  it('is news when the window lets go, and not for a cluster never held', () => {
    expect(syncWindowFact('prod', undefined, now).eventFor('Held')).toMatchObject({ reason: 'SyncWindowOpen', severity: 'info' });
    expect(syncWindowFact('prod', undefined, now).eventFor(undefined)).toBeUndefined();
    expect(syncWindowFact('prod', undefined, now).eventFor('Open')).toBeUndefined();
  });
});
