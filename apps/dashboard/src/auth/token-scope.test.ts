import { describe, expect, it } from 'vitest';
import { clusterInScope, coversSource, inScope, previewInScope, pruneInScope, scopeKey, sourceInScope, type TokenScope } from './token-scope';

const scope = (sources: string[], namespaces: string[], clusters: string[]): TokenScope => ({ sources, namespaces, clusters });
const record = (source: string, namespace: string, cluster: string) => ({ source, namespace, cluster });

describe('token scopes', () => {
  it('limits records by source, namespace and cluster; an empty list limits nothing', () => {
    const east = scope([], [], ['east']);
    expect(inScope(east, record('any', 'any', 'east'))).toBe(true);
    expect(inScope(east, record('any', 'any', 'west'))).toBe(false);
    const teamOnEast = scope(['team-a'], ['team-a'], ['east']);
    expect(inScope(teamOnEast, record('team-a', 'team-a', 'east'))).toBe(true);
    expect(inScope(teamOnEast, record('team-a', 'team-a', 'west'))).toBe(false);
    expect(inScope(teamOnEast, record('team-b', 'team-a', 'east'))).toBe(false);
    expect(inScope(teamOnEast, record('team-a', 'team-b', 'east'))).toBe(false);
    expect(inScope(scope(['team-a'], [], []), record('team-a', 'x', 'west'))).toBe(true);
    expect(inScope(undefined, record('x', 'y', 'z'))).toBe(true);
    // Names are compared as written: a cluster spelled another way is another cluster.
    expect(inScope(east, record('any', 'any', 'East'))).toBe(false);
  });

  it('shows a cluster to a scope without a cluster limit, or that names it', () => {
    expect(clusterInScope(scope(['team-a'], [], []), 'west')).toBe(true);
    expect(clusterInScope(scope([], [], ['east']), 'west')).toBe(false);
    expect(clusterInScope(scope([], [], ['east']), 'east')).toBe(true);
  });

  it('shows a cluster-only scope the sources its objects come from', () => {
    expect(sourceInScope(scope([], [], ['east']), 'team-a', true)).toBe(true);
    expect(sourceInScope(scope([], [], ['east']), 'team-a', false)).toBe(false);
  });

  it('covers a whole source (its polls, its previews) only when it names the source and limits no cluster', () => {
    expect(coversSource(scope(['team-a'], [], []), 'team-a')).toBe(true);
    expect(coversSource(scope(['team-a'], [], ['east']), 'team-a')).toBe(false);
    expect(coversSource(scope([], [], ['east']), 'team-a')).toBe(false);
    expect(previewInScope(scope(['team-a'], [], ['east']), 'team-a')).toBe(false);
    expect(previewInScope(scope(['team-a'], ['team-a'], []), 'team-a')).toBe(true);
  });

  it('shows a held prune only to a scope covering its source, every namespace and its cluster', () => {
    const hold = { source: 'team-a', cluster: 'east' };
    expect(pruneInScope(undefined, hold)).toBe(true);
    expect(pruneInScope(scope(['team-a'], [], []), hold)).toBe(true);
    expect(pruneInScope(scope([], [], ['east']), hold)).toBe(true);
    expect(pruneInScope(scope(['team-a'], [], ['east']), hold)).toBe(true);
    expect(pruneInScope(scope([], [], ['west']), hold)).toBe(false);
    expect(pruneInScope(scope(['team-a'], [], ['west']), hold)).toBe(false);
    expect(pruneInScope(scope(['team-b'], [], []), hold)).toBe(false);
    expect(pruneInScope(scope(['team-a'], ['team-a'], []), hold)).toBe(false);
  });

  it('keys scopes by all three lists, in any order', () => {
    expect(scopeKey(scope(['a'], [], ['east', 'west']))).toBe(scopeKey(scope(['a'], [], ['west', 'east'])));
    expect(scopeKey(scope(['a'], [], ['east']))).not.toBe(scopeKey(scope(['a'], [], ['west'])));
    expect(scopeKey(scope(['a'], [], []))).not.toBe(scopeKey(scope(['a'], [], ['east'])));
  });
});
