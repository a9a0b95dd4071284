import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { summarizeCell } from '../view/cell-state';
import { parseTreeChange } from '@tidemark/contracts';
import { cellEvent, treeEvent } from './live-updates';

const status = { cluster: 'c1', objectKey: 'core/ConfigMap/ns/<x>', conditions: [], updatedAt: '2026-01-01T00:00:00Z' } as unknown as ObjectStatus;

describe('cellEvent', () => {
  it('is one SSE `cells` event with the cell markup, escaped, and flags new and deleted objects', () => {
    const event = cellEvent([
      { cluster: 'c1', objectKey: status.objectKey, entry: { status, cell: summarizeCell(status) }, created: true },
      { cluster: 'c2', objectKey: 'core/ConfigMap/ns/gone' },
    ]);
    expect(event.startsWith('event: cells\ndata: ')).toBe(true);
    expect(event.endsWith('\n\n')).toBe(true);
    const { cells } = JSON.parse(event.slice('event: cells\ndata: '.length)) as { cells: { id: string; state: string; html: string; created?: boolean }[] };
    expect(cells[0]).toMatchObject({ id: 'c1|core/ConfigMap/ns/<x>', state: 'Unknown', created: true });
    expect(cells[0]!.html).toContain('data-cell="c1|core/ConfigMap/ns/&lt;x&gt;"');
    expect(cells[0]!.html).not.toContain('<x>');
    expect(cells[1]).toMatchObject({ id: 'c2|core/ConfigMap/ns/gone', state: 'Deleted' });
    expect(cells[1]!.html).toContain('class="cell empty"');
    expect(cells[1]).not.toHaveProperty('created');
  });
});

describe('treeEvent', () => {
  it('is one SSE `tree` event naming the cluster and owners, read back by the contract parser', () => {
    const event = treeEvent({ cluster: 'east', ownerUids: ['u-1', 'u-2'], replaced: false });
    expect(event.startsWith('event: tree\ndata: ')).toBe(true);
    expect(event.endsWith('\n\n')).toBe(true);
    expect(parseTreeChange(event.slice('event: tree\ndata: '.length).trim())).toEqual({ cluster: 'east', ownerUids: ['u-1', 'u-2'], replaced: false });
  });

  it('parses only well-formed messages, keeping string uids', () => {
    expect(parseTreeChange('not json')).toBeUndefined();
    expect(parseTreeChange('null')).toBeUndefined();
    expect(parseTreeChange(JSON.stringify({ cluster: 'east' }))).toBeUndefined();
    expect(parseTreeChange(JSON.stringify({ cluster: 'east', ownerUids: ['a', 7, null], replaced: 'yes' }))).toEqual({ cluster: 'east', ownerUids: ['a'], replaced: false });
  });
});
