import { describe, expect, it } from 'vitest';
import { NotReadyError, TransientError, type ReconcileJob, type SyncWindowPass } from '@tidemark/contracts';
import type { WindowHold } from '../dependencies';
import { windowCheck } from './stage-gates';

const job: ReconcileJob = { source: 'apps', revision: 'a'.repeat(40), cluster: 'prod-a', objectKey: 'core/ConfigMap/default/settings', reason: 'manual' };
const deny: WindowHold = { description: 'deny window "release" until 16:00 Europe/Berlin', manualSync: false, opensInMs: 3_600_000 };

function passes(initial: SyncWindowPass[]) {
  const left = [...initial];
  return { left, take: async () => left.shift() };
}

describe('windowCheck', () => {
  it('lets a run through when no window holds', async () => {
    await expect(windowCheck({ job }, { syncWindowOf: () => undefined })).resolves.toBeUndefined();
    await expect(windowCheck({ job }, {})).resolves.toBeUndefined();
  });

  it('holds a run, saying which window and until when, and looks again at the end (at most the recheck)', async () => {
    const held = windowCheck({ job }, { syncWindowOf: () => ({ ...deny, opensInMs: 42_000 }) });
    await expect(held).rejects.toBeInstanceOf(NotReadyError);
    await expect(held).rejects.toMatchObject({ code: 'SyncWindowClosed', category: 'waiting', requeueAfterMs: 42_000, message: expect.stringContaining('Sync window: deny window "release" until 16:00 Europe/Berlin. Nothing from source apps is applied or pruned on cluster prod-a') });
    await expect(windowCheck({ job }, { syncWindowOf: () => deny, options: { syncWindowRecheckMs: 5_000 } })).rejects.toMatchObject({ requeueAfterMs: 5_000 });
    await expect(windowCheck({ job }, { syncWindowOf: () => ({ ...deny, opensInMs: undefined }) })).rejects.toMatchObject({ requeueAfterMs: 300_000 });
    await expect(windowCheck({ job }, { syncWindowOf: () => ({ ...deny, opensInMs: -5 }) })).rejects.toMatchObject({ requeueAfterMs: 1_000 });
  });

  it('lets one run through per operator pass when the window allows manual syncs', async () => {
    const store = passes([{ by: 'otto', at: '2026-03-31T10:00:00.000Z' }]);
    const deps = { syncWindowOf: () => ({ ...deny, manualSync: true }), takeWindowPass: store.take };
    await expect(windowCheck({ job }, deps)).resolves.toBeUndefined();
    expect(store.left).toHaveLength(0);
    await expect(windowCheck({ job }, deps)).rejects.toMatchObject({ code: 'SyncWindowClosed', message: expect.stringContaining('manualSync') });
  });

  it('neither takes nor honours a pass when the window does not allow manual syncs', async () => {
    const store = passes([{ by: 'otto', at: '2026-03-31T10:00:00.000Z' }]);
    await expect(windowCheck({ job }, { syncWindowOf: () => deny, takeWindowPass: store.take })).rejects.toMatchObject({ code: 'SyncWindowClosed' });
    expect(store.left).toHaveLength(1);
  });

  it('writes nothing while it cannot read a pass', async () => {
    const failing = windowCheck({ job }, { syncWindowOf: () => ({ ...deny, manualSync: true }), takeWindowPass: async () => { throw new Error('connection lost'); } });
    await expect(failing).rejects.toBeInstanceOf(TransientError);
    await expect(failing).rejects.toMatchObject({ code: 'SyncWindowUnknown' });
  });
});
