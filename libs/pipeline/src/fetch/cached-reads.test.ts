import { describe, expect, it } from 'vitest';
import { ApiError, toReconcileFailure } from '@tidemark/cluster';
import { isStaleCacheSymptom } from './stage-fetch';
import type { ReconcileRun } from '../run';

const run = (cachedReads?: number) => ({ cachedReads }) as ReconcileRun;
const notFound = new ApiError(404, { message: 'webapps.tidemark.dev "shop" not found', details: { kind: 'webapps', name: 'shop' } }, 'apply status');
const namespaceMissing = new ApiError(404, { message: 'namespaces "shop" not found', details: { kind: 'namespaces', name: 'shop' } }, 'apply');
const conflict = new ApiError(409, { message: 'the object has been modified' }, 'remove finalizer');

describe('isStaleCacheSymptom', () => {
  it('a 404 or a conflict after a cached read may come from a stale cache, wrapped as a failure or not', () => {
    expect(isStaleCacheSymptom(run(1), notFound)).toBe(true);
    expect(isStaleCacheSymptom(run(2), toReconcileFailure(conflict, 'apply'))).toBe(true);
  });

  it('not without a cached read, and not for a namespace that is missing whatever was read', () => {
    expect(isStaleCacheSymptom(run(), notFound)).toBe(false);
    expect(isStaleCacheSymptom(run(1), toReconcileFailure(namespaceMissing, 'apply'))).toBe(false);
    expect(isStaleCacheSymptom(run(1), new ApiError(422, { message: 'invalid' }, 'apply'))).toBe(false);
  });
});
