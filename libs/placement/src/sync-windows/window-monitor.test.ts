import { describe, expect, it } from 'vitest';
import { compileSyncWindow, type SyncWindowInput } from './sync-window';
import { SyncWindowMonitor, syncWindowOf, unknownClusters } from './window-monitor';

const silent = { info: () => undefined, warn: () => undefined };

const clusters = () => [{ name: 'prod', labels: { tier: 'prod' } }, { name: 'canary', labels: { tier: 'canary' } }];
const windows = (inputs: SyncWindowInput[]) => inputs.map((input, index) => compileSyncWindow(input, `syncWindows[${index}]`, new Date('2026-01-01T00:00:00Z')));
const office: SyncWindowInput = { name: 'office', kind: 'deny', schedule: '0 9 * * *', duration: '7h', timeZone: 'Europe/Berlin', clusterSelector: { matchLabels: { tier: 'prod' } } };

function monitorAt(inputs: SyncWindowInput[], start: string) {
  let now = new Date(start);
  const looks: [string, boolean, number][] = [];
  const opened: string[] = [];
  const monitor = new SyncWindowMonitor({
    windows: windows(inputs), clusters, clock: () => now, log: silent,
    onLook: (cluster, held, seconds) => looks.push([cluster, held, seconds]),
    onOpened: async (cluster) => opened.push(cluster),
  });
  return { monitor, looks, opened, move: (iso: string) => { now = new Date(iso); } };
}

describe('SyncWindowMonitor', () => {
  it('counts the time a cluster is held, by the clock, and wakes it once when the window lets go', async () => {
    const { monitor, looks, opened, move } = monitorAt([office], '2026-03-31T06:00:00Z');
    monitor.look();
    move('2026-03-31T08:00:00Z');
    monitor.look();
    move('2026-03-31T10:00:00Z');
    monitor.look();
    expect(looks.filter(([cluster]) => cluster === 'prod')).toEqual([['prod', false, 0], ['prod', true, 7200], ['prod', true, 7200]]);
    expect(looks.filter(([cluster, held]) => cluster === 'canary' && held)).toEqual([]);
    expect(opened).toEqual([]);
    move('2026-03-31T14:00:00Z');
    monitor.look();
    monitor.look();
    await Promise.resolve();
    expect(opened).toEqual(['prod']);
  });

  it('wakes a cluster when a window for one source lets go, without counting it as held for every source', async () => {
    const { monitor, looks, opened, move } = monitorAt([{ ...office, sources: ['payments'] }], '2026-03-31T08:00:00Z');
    monitor.look();
    move('2026-03-31T14:00:00Z');
    monitor.look();
    await Promise.resolve();
    expect(looks.filter(([cluster, held]) => cluster === 'prod' && held)).toEqual([]);
    expect(opened).toEqual(['prod']);
  });
});

describe('syncWindowOf', () => {
  it('answers the pipeline with the hold and the time until it opens, by the injected clock', () => {
    const of = syncWindowOf({ windows: windows([office]), clusters, clock: () => new Date('2026-03-31T13:00:00Z') });
    expect(of('prod', 'apps')).toEqual({ description: 'deny window "office" until 16:00 Europe/Berlin', manualSync: false, opensInMs: 3_600_000 });
    expect(of('canary', 'apps')).toBeUndefined();
    // A cluster the windows do not know has no labels: only windows that cover every cluster hold it.
    expect(of('elsewhere', 'apps')).toBeUndefined();
  });
});

describe('unknownClusters', () => {
  it('names the clusters windows list that are not registered, once each', () => {
    expect(unknownClusters({ windows: windows([{ ...office, clusters: ['prod', 'prdo'] }, { ...office, clusters: ['prdo'] }]), clusters })).toEqual(['prdo']);
    expect(unknownClusters({ windows: windows([office]), clusters })).toEqual([]);
  });
});
