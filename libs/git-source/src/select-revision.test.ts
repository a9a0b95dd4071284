import { describe, expect, it } from 'vitest';
import { selectRevision } from './select-revision';

const oid = (digit: string) => digit.repeat(40);
const refs = [
  { ref: 'refs/heads/main', oid: oid('1') },
  { ref: 'refs/tags/v1.2.0', oid: oid('2') },
  { ref: 'refs/tags/v1.10.0', oid: oid('3'), peeled: oid('4') },
  { ref: 'refs/tags/v2.0.0', oid: oid('5') },
  { ref: 'refs/tags/v1.11.0-rc.1', oid: oid('6') },
  { ref: 'refs/tags/latest', oid: oid('7') },
];

describe('selectRevision', () => {
  it('picks the highest tag in a semver range, by version and not by name, peeling annotated tags', () => {
    expect(selectRevision({ semver: '^1.0.0' }, refs)).toEqual({ ref: 'refs/tags/v1.10.0', oid: oid('3'), commit: oid('4') });
    expect(selectRevision({ semver: '>=2' }, refs)?.ref).toBe('refs/tags/v2.0.0');
    expect(selectRevision({ semver: '^3' }, refs)).toBeUndefined();
  });

  it('finds branches and tags by full name and pins commits without refs', () => {
    expect(selectRevision({ branch: 'main' }, refs)?.commit).toBe(oid('1'));
    expect(selectRevision({ tag: 'latest' }, refs)?.commit).toBe(oid('7'));
    expect(selectRevision({ branch: 'gone' }, refs)).toBeUndefined();
    expect(selectRevision({ commit: oid('9') }, [])).toEqual({ ref: oid('9'), oid: oid('9'), commit: oid('9') });
  });
});
