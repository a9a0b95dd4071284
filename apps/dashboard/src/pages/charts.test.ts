import { describe, expect, it } from 'vitest';
import { durationBars, revisionLanes, sparkline, summarise } from './charts';

const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, second)).toISOString();
const jobs = (value: number) => `${value} jobs`;

describe('charts', () => {
  it('draws a sparkline with a sentence and one table row per sample, skipping gaps in the line', () => {
    const points = [{ at: at(0), value: 3 }, { at: at(15), value: undefined }, { at: at(30), value: 8 }, { at: at(45), value: 2 }];
    const markup = sparkline({ id: 'q', title: 'Queued jobs', points, format: jobs }).value;
    expect(summarise(points, jobs)).toBe('Now 2 jobs; lowest 2 jobs, highest 8 jobs, over 3 samples since 12:00:00 UTC.');
    expect(/<polyline class="chart-line" points="([^"]*)"/.exec(markup)?.[1]?.split(' ')).toHaveLength(3);
    expect(markup.match(/<tr><td>/g)).toHaveLength(4);
    expect(markup).toContain('aria-label="Queued jobs: Now 2 jobs;');
    expect(summarise([], jobs)).toBe('No sample recorded yet.');
  });

  it('scales duration bars to the longest and says which are not live yet', () => {
    const markup = durationBars('c', 'Commit to live', [{ label: 'abc fix', cluster: 'east', ms: 2000 }, { label: 'abc fix', cluster: 'west', ms: 1000 }, { label: 'abc fix', cluster: 'edge', ms: undefined }]).value;
    expect([...markup.matchAll(/class="chart-bar"[^>]* width="([\d.]+)"/g)].map((match) => Number(match[1]))).toEqual([320, 160]);
    expect(markup).toContain('2 of 3 reached their cluster; the longest took 2.0 s.');
    expect(markup).toContain('<td class="num">not live yet</td>');
  });

  it('ticks each new revision on a lane and labels it unless the label would run into the last one', () => {
    const lanes = new Map([['east', [
      { at: at(0), result: 'progressing', revision: 'a'.repeat(40) }, { at: at(1), result: 'succeeded', revision: 'b'.repeat(40) },
      { at: at(50), result: 'succeeded', revision: 'c'.repeat(40) }, { at: at(55), result: 'failed', revision: 'c'.repeat(40) },
    ]]]);
    const markup = revisionLanes('l', 'Runs', lanes).value;
    expect(markup.match(/class="chart-tick"/g)).toHaveLength(3);
    expect([...markup.matchAll(/class="chart-label small"[^>]*>(\w+)</g)].map((match) => match[1])).toEqual(['aaaaaaa', 'ccccccc']);
    expect(markup.match(/class="run run-/g)).toHaveLength(4);
    expect(markup).toContain('4 runs on 1 cluster between 12:00:00 and 12:00:55 UTC.');
  });
});
