import { describe, expect, it } from 'vitest';
import { messageOf, TerminalError } from './errors';

describe('messageOf', () => {
  const cases: ReadonlyArray<[string, unknown, string]> = [
    ['an Error', new Error('boom'), 'boom'],
    ['a failure class', new TerminalError('Invalid', 'spec.replicas: must be at most 100.'), 'spec.replicas: must be at most 100.'],
    ['a string', 'plain text', 'plain text'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
  ];
  it.each(cases)('%s', (_name, thrown, message) => {
    expect(messageOf(thrown)).toBe(message);
  });
});
