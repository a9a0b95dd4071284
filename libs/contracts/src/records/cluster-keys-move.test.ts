import { describe, expect, it } from 'vitest';
import { movedName } from './cluster-keys-move';
import { RecordKeys } from './record-keys';

describe('per-cluster record names', () => {
  it('puts a target cluster\'s records under its own tag with a hash tag, and changes nothing without', () => {
    const tagged = new RecordKeys('{tm}');
    expect(tagged.objectStatus('east')).toBe('{tm.east}:status:east');
    expect(tagged.history('east', 'core/ConfigMap/a/b')).toBe('{tm.east}:history:east:core/ConfigMap/a/b');
    expect(tagged.pruneHold('apps', 'east')).toBe('{tm.east}:prune-hold:apps:east');
    expect(tagged.watchLease('east')).toBe('{tm.east}:lease:watch:east');
    expect(tagged.sourceStatus('apps')).toBe('{tm}:source:apps');
    const plain = new RecordKeys('tm');
    expect(plain.objectStatus('east')).toBe('tm:status:east');
    expect(plain.pruneHolds('east')).toBe('tm:prune-holds');
    expect(plain.revisionLive('apps', 'r1', 'east')).toBe('tm:revision-live:apps:r1');
  });

  it('maps each old name of a cluster\'s record to its new one, and leaves shared records and leases', () => {
    const keys = new RecordKeys('{tm}');
    expect(movedName(keys, '{tm}:status:east')).toBe('{tm.east}:status:east');
    expect(movedName(keys, '{tm}:history:east:core/ConfigMap/a:b/c')).toBe('{tm.east}:history:east:core/ConfigMap/a:b/c');
    expect(movedName(keys, '{tm}:prune-hold:apps:east')).toBe('{tm.east}:prune-hold:apps:east');
    expect(movedName(keys, '{tm}:commit-status:apps:abc123:east')).toBe('{tm.east}:commit-status:apps:abc123:east');
    expect(movedName(keys, '{tm}:commit-status-open:apps:east')).toBe('{tm.east}:commit-status-open:apps:east');
    expect(movedName(keys, '{tm}:waiters:east:crd:example.com/Widget')).toBe('{tm.east}:waiters:east:crd:example.com/Widget');
    for (const shared of ['{tm}:source:apps', '{tm}:status-clusters', '{tm}:schema', '{tm}:lease:watch:east', '{tm}:dashboard-session:x', '{tm}:status:', '{tm}:status:bad/name']) {
      expect(movedName(keys, shared)).toBeUndefined();
    }
    expect(movedName(new RecordKeys('tm'), 'tm:status:east')).toBeUndefined();
  });
});
