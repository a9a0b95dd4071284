import { describe, expect, it } from 'vitest';
import { jobSchemaVersion, reconcileJobName, redisSchemaVersion, SchemaTooNewError } from './schema-version';

describe('job schema versions', () => {
  it('carries the version in the job name; the previous release wrote plain "reconcile" (schema 1)', () => {
    expect(reconcileJobName()).toBe(`reconcile.v${redisSchemaVersion}`);
    expect(jobSchemaVersion(reconcileJobName())).toBe(redisSchemaVersion);
    expect(jobSchemaVersion('reconcile')).toBe(1);
    expect(reconcileJobName(1)).toBe('reconcile');
    expect(jobSchemaVersion('reconcile.v7')).toBe(7);
    expect(jobSchemaVersion('something-else')).toBeUndefined();
  });

  it('names the versions and what to do when refusing a downgrade', () => {
    expect(new SchemaTooNewError(3, 2, 'tidemark').message).toBe('Redis at prefix "tidemark" holds records of schema 3, written by a newer Tidemark; this release reads schema 2 and older. Downgrading is refused so that no record is misread: run the newer release again, or give this one an empty Redis or another prefix.');
  });
});
