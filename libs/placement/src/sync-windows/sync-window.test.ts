import { describe, expect, it } from 'vitest';
import { compileSyncWindow, SyncWindowError, type SyncWindowInput } from './sync-window';
import { syncWindowHold } from './window-verdict';

const prod = { name: 'prod-a', labels: { tier: 'prod' } };
const staging = { name: 'staging', labels: { tier: 'staging' } };
const compile = (inputs: SyncWindowInput[]) => inputs.map((input, index) => compileSyncWindow(input, `tidemark.yaml: syncWindows[${index}]`, new Date('2026-01-01T00:00:00Z')));
const at = (iso: string) => new Date(iso);

const office: SyncWindowInput = { name: 'office', kind: 'allow', schedule: '0 9 * * 2-4', duration: '7h', timeZone: 'Europe/Berlin', clusterSelector: { matchLabels: { tier: 'prod' } } };
const lunch: SyncWindowInput = { name: 'lunch', kind: 'deny', schedule: '0 12 * * *', duration: '1h', timeZone: 'Europe/Berlin' };

describe('syncWindowHold', () => {
  // 2026-03-31 is a Tuesday; Berlin is UTC+2 (CEST) then, UTC+1 (CET) in January and after 25 October.
  const cases: { name: string; windows: SyncWindowInput[]; now: string; cluster?: typeof prod; source?: string; held?: { kind: 'deny' | 'allow'; description: string; until?: string; manualSync?: boolean } }[] = [
    { name: 'a deny window holds while open and says until when, in its zone', windows: [{ ...lunch, name: undefined, schedule: '0 9 * * 1-5', duration: '7h' }], now: '2026-03-31T08:00:00Z',
      held: { kind: 'deny', description: 'deny window "0 9 * * 1-5" until 16:00 Europe/Berlin', until: '2026-03-31T14:00:00Z' } },
    { name: 'the minute a deny window ends, writes go', windows: [{ ...lunch, schedule: '0 9 * * 1-5', duration: '7h' }], now: '2026-03-31T14:00:00Z' },
    { name: 'the minute before it opens, writes go', windows: [{ ...lunch, schedule: '0 9 * * 1-5', duration: '7h' }], now: '2026-03-31T06:59:00Z' },
    { name: 'inside an allow window, writes go', windows: [office], now: '2026-03-31T10:00:00Z' },
    { name: 'outside every allow window, writes wait for the next one (another day: the date is said)', windows: [office], now: '2026-03-30T10:00:00Z',
      held: { kind: 'allow', description: 'outside its allow windows until 2026-03-31 09:00 Europe/Berlin', until: '2026-03-31T07:00:00Z' } },
    { name: 'allow windows cover only the clusters they select', windows: [office], now: '2026-03-30T10:00:00Z', cluster: staging },
    { name: 'a deny window inside an allow window holds', windows: [office, lunch], now: '2026-03-31T10:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 13:00 Europe/Berlin', until: '2026-03-31T11:00:00Z' } },
    { name: 'a deny window running past the allow window holds until the next allow window', windows: [{ ...office, duration: '4h' }, { ...lunch, schedule: '0 12 * * *', duration: '2h' }], now: '2026-03-31T10:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 2026-04-01 09:00 Europe/Berlin', until: '2026-04-01T07:00:00Z' } },
    { name: 'a window for some sources does not hold another source', windows: [{ ...lunch, sources: ['apps'] }], now: '2026-03-31T10:30:00Z', source: 'infra' },
    { name: 'a window for some sources holds its own', windows: [{ ...lunch, sources: ['apps'] }], now: '2026-03-31T10:30:00Z', source: 'apps',
      held: { kind: 'deny', description: 'deny window "lunch" until 13:00 Europe/Berlin' } },
    { name: '"every source" is held only by windows without a sources list', windows: [{ ...lunch, sources: ['apps'] }], now: '2026-03-31T10:30:00Z', source: undefined },
    { name: 'clusters named are covered besides those the selector selects', windows: [{ ...lunch, clusters: ['staging'], clusterSelector: { matchLabels: { tier: 'none' } } }], now: '2026-03-31T10:30:00Z', cluster: staging,
      held: { kind: 'deny', description: 'deny window "lunch" until 13:00 Europe/Berlin' } },
    { name: 'manual sync passes only when every holding window allows it', windows: [{ ...lunch, manualSync: true }, { ...lunch, name: 'other', duration: '2h' }], now: '2026-03-31T10:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch", deny window "other" until 14:00 Europe/Berlin', manualSync: false } },
    { name: 'a manualSync window lets manual syncs pass', windows: [{ ...lunch, manualSync: true }], now: '2026-03-31T10:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 13:00 Europe/Berlin', manualSync: true } },
    { name: 'overlapping occurrences merge into one stretch', windows: [{ ...lunch, schedule: '0 12,13 * * *', duration: '90m' }], now: '2026-03-31T10:10:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 14:30 Europe/Berlin' } },
    { name: 'a window that never closes says so', windows: [{ ...lunch, schedule: '0 * * * *', duration: '2h' }], now: '2026-03-31T10:10:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until further notice' } },
    // DST: the spring-forward night (29 March 2026, 02:00 CET → 03:00 CEST) and the fall-back night (25 October 2026, 03:00 CEST → 02:00 CET).
    { name: 'spring forward: the duration is elapsed time, so the wall-clock end moves an hour', windows: [{ ...lunch, schedule: '0 1 * * *', duration: '3h' }], now: '2026-03-29T02:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 05:00 Europe/Berlin', until: '2026-03-29T03:00:00Z' } },
    { name: 'spring forward: a start in the skipped hour opens at 03:00', windows: [{ ...lunch, schedule: '30 2 * * *', duration: '1h' }], now: '2026-03-29T01:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 04:00 Europe/Berlin', until: '2026-03-29T02:00:00Z' } },
    { name: 'spring forward: before the shifted start, writes go', windows: [{ ...lunch, schedule: '30 2 * * *', duration: '1h' }], now: '2026-03-29T00:59:00Z' },
    { name: 'fall back: a start in the doubled hour opens once, on its first pass', windows: [{ ...lunch, schedule: '30 2 * * *', duration: '30m' }], now: '2026-10-25T00:45:00Z',
      // Its end, 30 minutes later, is 02:00 again: the clock fell back in between.
      held: { kind: 'deny', description: 'deny window "lunch" until 02:00 Europe/Berlin', until: '2026-10-25T01:00:00Z' } },
    { name: 'fall back: the second pass of the doubled hour opens nothing', windows: [{ ...lunch, schedule: '30 2 * * *', duration: '30m' }], now: '2026-10-25T01:45:00Z' },
    { name: 'fall back: an allow window of office hours still opens at 09:00 local', windows: [{ ...office, schedule: '0 9 * * *' }], now: '2026-10-25T06:00:00Z',
      held: { kind: 'allow', description: 'outside its allow windows until 09:00 Europe/Berlin', until: '2026-10-25T08:00:00Z' } },
    { name: 'UTC is the default zone', windows: [{ ...lunch, timeZone: undefined }], now: '2026-03-31T12:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 13:00 UTC', until: '2026-03-31T13:00:00Z' } },
    { name: 'a zone spelt in lower case is the same zone', windows: [{ ...lunch, timeZone: 'europe/berlin' }], now: '2026-03-31T10:30:00Z',
      held: { kind: 'deny', description: 'deny window "lunch" until 13:00 Europe/Berlin' } },
  ];
  for (const entry of cases) {
    it(entry.name, () => {
      const hold = syncWindowHold(at(entry.now), compile(entry.windows), entry.cluster ?? prod, 'source' in entry ? entry.source : 'apps');
      if (!entry.held) {
        expect(hold).toBeUndefined();
        return;
      }
      expect(hold).toMatchObject({ kind: entry.held.kind, description: entry.held.description, manualSync: entry.held.manualSync ?? false });
      if (entry.held.until) expect(hold?.until?.toISOString()).toBe(new Date(entry.held.until).toISOString());
    });
  }
});

describe('compileSyncWindow', () => {
  const base: SyncWindowInput = { kind: 'deny', schedule: '0 12 * * *', duration: '1h', timeZone: 'Europe/Berlin' };
  const hostile: { name: string; input: Partial<SyncWindowInput> & Record<string, unknown>; field: string }[] = [
    { name: 'a minute out of range', input: { schedule: '61 * * * *' }, field: 'schedule' },
    { name: 'too few fields', input: { schedule: '* * *' }, field: 'schedule' },
    { name: 'a seconds field', input: { schedule: '0 0 12 * * *' }, field: 'schedule' },
    { name: 'a nickname', input: { schedule: '@daily' }, field: 'schedule' },
    { name: 'an empty schedule', input: { schedule: '' }, field: 'schedule' },
    { name: 'a schedule of 10 kB', input: { schedule: `${'1,'.repeat(5000)}1 * * * *` }, field: 'schedule' },
    { name: 'a date that never comes', input: { schedule: '0 0 30 2 *' }, field: 'schedule' },
    { name: 'a huge duration', input: { duration: '99999d' }, field: 'duration' },
    { name: 'more digits than a duration holds', input: { duration: '1000000000000000000000h' }, field: 'duration' },
    { name: 'a zero duration', input: { duration: '0m' }, field: 'duration' },
    { name: 'weeks', input: { duration: '1w' }, field: 'duration' },
    { name: 'a negative duration', input: { duration: '-1h' }, field: 'duration' },
    { name: 'a duration with a space', input: { duration: '1h 30m' }, field: 'duration' },
    { name: 'an empty duration', input: { duration: '' }, field: 'duration' },
    { name: 'an unknown zone', input: { timeZone: 'Mars/Olympus_Mons' }, field: 'timeZone' },
    { name: 'an empty zone', input: { timeZone: '' }, field: 'timeZone' },
    { name: 'a zone with a newline', input: { timeZone: 'Europe/Berlin\nX' }, field: 'timeZone' },
    { name: 'a name with a newline', input: { name: 'weekend\nok' }, field: 'name' },
    { name: 'an unknown kind', input: { kind: 'maybe' as 'deny' }, field: 'kind' },
    { name: 'a selector operator Kubernetes does not have', input: { clusterSelector: { matchExpressions: [{ key: 'tier', operator: 'Like', values: ['prod'] }] } }, field: 'clusterSelector' },
  ];
  for (const entry of hostile) {
    it(`refuses ${entry.name}, naming the field`, () => {
      const compiling = () => compileSyncWindow({ ...base, ...entry.input } as SyncWindowInput, 'tidemark.yaml: syncWindows[3]');
      expect(compiling).toThrow(SyncWindowError);
      expect(compiling).toThrow(`tidemark.yaml: syncWindows[3].${entry.field}: `);
    });
  }

  it('keeps durations of days, hours and minutes', () => {
    expect(compileSyncWindow({ ...base, duration: '1d12h30m' }, 'w').durationMs).toBe((36 * 60 + 30) * 60_000);
    expect(compileSyncWindow({ ...base, duration: '31d' }, 'w').durationMs).toBe(31 * 24 * 3600_000);
  });
});
