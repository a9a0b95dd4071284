import { describe, expect, it } from 'vitest';
import type { SourceStatus } from '@tidemark/contracts';
import { problemsEvent } from './source-problems-event';

const revision = '3f2a9c1b2d4e5f60718293a4b5c6d7e8f9012345';

describe('problemsEvent', () => {
  it('names every file with its line, reason and code, in one Event named after the revision', () => {
    const record: SourceStatus = {
      revision, state: 'degraded', sourceErrors: 2,
      problems: [
        { path: 'v2/broken.yaml', line: 4, code: 'ParseFailed', message: 'v2/broken.yaml:4: a quoted string is not closed' },
        { path: 'deploy/overlay/', code: 'RenderFailed', message: 'deploy/overlay/: kustomize build deploy/overlay failed: missing resource' },
      ],
    };
    expect(problemsEvent('app', record)).toEqual({
      type: 'Warning', reason: 'SourceInvalid', name: 'app.3f2a9c1b2d4e5f60.problems',
      message: 'Revision 3f2a9c1b2d4e has 2 problems; objects these files declared before are kept as they were: v2/broken.yaml:4: a quoted string is not closed (ParseFailed); deploy/overlay/: kustomize build deploy/overlay failed: missing resource (RenderFailed).',
    });
  });

  it('stays within 1 KiB and says how many it left out', () => {
    const problems = Array.from({ length: 50 }, (_, index) => ({ path: `apps/f${index}.yaml`, line: 1, code: 'ParseFailed', message: `apps/f${index}.yaml:1: ${'x'.repeat(60)}` }));
    const event = problemsEvent('app', { revision, sourceErrors: 70, problems })!;
    expect(event.message.length).toBeLessThanOrEqual(1024);
    const shown = event.message.match(/\(ParseFailed\)/g)?.length ?? 0;
    expect(shown).toBeGreaterThan(5);
    expect(event.message).toMatch(new RegExp(`; and ${70 - shown} more\\.$`));
  });

  it('is not made for a revision without problems, or a record without a revision', () => {
    expect(problemsEvent('app', { revision, sourceErrors: 0 })).toBeUndefined();
    expect(problemsEvent('app', { state: 'error', sourceErrors: 3 })).toBeUndefined();
  });
});
