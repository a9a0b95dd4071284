import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { sameObject } from './compare';

const object = (managers: string[], time: string): KubernetesManifest => ({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: { name: 'a', managedFields: managers.map((manager) => ({ manager, operation: 'Apply', time, fieldsV1: { 'f:data': {} } })) },
} as unknown as KubernetesManifest);

describe('sameObject', () => {
  it('ignores the time and the order of managedFields entries, not who manages', () => {
    expect(sameObject(object(['tidemark', 'tidemark-install'], '2026-01-01T00:00:00Z'), object(['tidemark-install', 'tidemark'], '2026-01-02T00:00:00Z'))).toBe(true);
    expect(sameObject(object(['tidemark'], 't'), object(['tidemark', 'tidemark-install'], 't'))).toBe(false);
  });
});
