import { describe, expect, it } from 'vitest';
import { colourWanted, paint, parseFormat, table, withoutColour } from './output';

describe('output', () => {
  it('colours only on a terminal, and never with NO_COLOR or TERM=dumb', () => {
    expect(colourWanted({ isTTY: true }, {})).toBe(true);
    expect(colourWanted({ isTTY: false }, {})).toBe(false);
    expect(colourWanted({}, {})).toBe(false);
    expect(colourWanted({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(paint({ colour: true }, 'red', 'Stalled')).toBe('\u001b[31mStalled\u001b[0m');
    expect(paint({ colour: false }, 'red', 'Stalled')).toBe('Stalled');
  });

  it('lines columns up by visible width, so colour codes never shift a column', () => {
    const plain = table(['STATE', 'NAME'], [['Ready', 'a'], ['Stalled', 'b']]);
    const coloured = table(['STATE', 'NAME'], [[paint({ colour: true }, 'green', 'Ready'), 'a'], [paint({ colour: true }, 'red', 'Stalled'), 'b']]);
    expect(plain).toBe('STATE    NAME\nReady    a\nStalled  b\n');
    expect(coloured).not.toBe(plain);
    expect(withoutColour(coloured)).toBe(plain);
  });

  it('takes table or json for -o, and names what it refuses', () => {
    expect(parseFormat(undefined)).toBe('table');
    expect(parseFormat('json')).toBe('json');
    expect(() => parseFormat('yaml')).toThrow('-o must be table or json, not "yaml"');
  });
});
