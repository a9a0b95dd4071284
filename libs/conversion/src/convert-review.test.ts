import { createDefaultRegistry } from '@tidemark/kinds';
import { describe, expect, it } from 'vitest';
import { convertReview } from './convert-review';

const kinds = createDefaultRegistry();
const webApp = (name: string) => ({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name, namespace: 'shop', uid: `uid-${name}` }, spec: { image: 'web:1' } });

describe('convertReview', () => {
  it('converts every object in order and echoes the uid', () => {
    const review = convertReview({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'r1', desiredAPIVersion: 'tidemark.dev/v1beta1', objects: [webApp('a'), webApp('b')] } }, kinds);
    expect(review.response?.uid).toBe('r1');
    expect(review.response?.result).toEqual({ status: 'Success' });
    expect(review.response?.convertedObjects.map((object) => [object.apiVersion, object.metadata.name, object.spec])).toEqual([
      ['tidemark.dev/v1beta1', 'a', { image: { repository: 'web', tag: '1' } }],
      ['tidemark.dev/v1beta1', 'b', { image: { repository: 'web', tag: '1' } }],
    ]);
  });

  it('fails the review, naming the object, for a kind it cannot convert', () => {
    const review = convertReview({ request: { uid: 'r2', desiredAPIVersion: 'k8spatterns.com/v2', objects: [{ apiVersion: 'k8spatterns.com/v1', kind: 'ConfigWatcher', metadata: { name: 'cw', namespace: 'ns' } }] } }, kinds);
    expect(review.response?.result.status).toBe('Failure');
    expect(review.response?.result.message).toContain('ConfigWatcher ns/cw (k8spatterns.com/v1)');
  });

  it('refuses a body that is not a review', () => {
    expect(() => convertReview({ hello: 1 }, kinds)).toThrow('not a ConversionReview');
  });
});
