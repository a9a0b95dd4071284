import { describe, expect, it } from 'vitest';
import { runsOf, type RecordedApply } from './raw-apply';

function sent(run: string | undefined, path: string, at: number, answeredAt: number): RecordedApply {
  return { method: 'PATCH', path, query: {}, body: '{}', ...(run === undefined ? {} : { run }), sent: at, answered: answeredAt };
}

describe('runsOf', () => {
  it('keeps each run apart, in its order, with requests that were in flight together as one step', () => {
    const requests = [
      sent('a', 'a/cr', 0, 10),
      sent('b', 'b/cr', 1, 12),
      sent('a', 'a/deployment', 11, 20),
      sent('a', 'a/service', 12, 18),
      sent('b', 'b/deployment', 13, 19),
      sent('a', 'a/configmap', 19, 25),
      sent('a', 'a/status', 26, 30),
      sent(undefined, 'unknown', 27, 28),
      sent('a', 'a/event', 31, 32),
    ];
    const paths = runsOf(requests).map((run) => run.map((step) => step.map((request) => request.path)));
    expect(paths).toEqual([
      [['a/cr'], ['a/deployment', 'a/service', 'a/configmap'], ['a/status'], ['a/event']],
      [['b/cr'], ['b/deployment']],
    ]);
  });

  it('starts a new step when a request was sent after every request of the step before was answered', () => {
    const paths = runsOf([sent('a', 'one', 0, 5), sent('a', 'two', 5, 9)]).map((run) => run.map((step) => step.map((request) => request.path)));
    expect(paths).toEqual([[['one'], ['two']]]);
  });
});
