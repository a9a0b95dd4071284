import { describe, expect, it } from 'vitest';
import { isPlainObject, type PlainObject } from '../../shared/plain-object';
import { webAppFeatures } from '../features/index';
import { webAppCrd } from './webapp-crd';

const crd = webAppCrd(webAppFeatures);
const crdSpec = crd.spec as { group: string; scope: string; names: PlainObject; versions: PlainObject[] };
const version = crdSpec.versions[0] as { name: string; served: boolean; storage: boolean; subresources: PlainObject; additionalPrinterColumns: PlainObject[]; schema: { openAPIV3Schema: PlainObject } };
const root = version.schema.openAPIV3Schema;
const spec = (root.properties as { spec: PlainObject & { properties: Record<string, PlainObject> } }).spec;

/** structuralProblems lists where a schema breaks the structural-schema rules of apiextensions.k8s.io/v1. */
function structuralProblems(node: PlainObject, path: string): string[] {
  return [...nodeProblems(node, path), ...listMapKeyProblems(node, path), ...childrenOf(node).flatMap(([name, child]) => structuralProblems(child, `${path}.${name}`))];
}

function nodeProblems(node: PlainObject, path: string): string[] {
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const exempt = intOrString || node['x-kubernetes-preserve-unknown-fields'] === true;
  return [
    typeof node.type !== 'string' && !exempt ? `${path} has no type` : '',
    node.properties !== undefined && node.additionalProperties !== undefined ? `${path} has both properties and additionalProperties` : '',
    node.type === 'array' && !isPlainObject(node.items) ? `${path} is an array without items` : '',
    Array.isArray(node.anyOf) && !intOrString ? `${path} uses anyOf outside int-or-string` : '',
  ].filter((problem) => problem !== '');
}

function childrenOf(node: PlainObject): [string, PlainObject][] {
  const properties = Object.entries(isPlainObject(node.properties) ? node.properties : {});
  const nested = [['additionalProperties', node.additionalProperties] as const, ['items', node.items] as const];
  return [...properties, ...nested].filter((entry): entry is [string, PlainObject] => isPlainObject(entry[1]));
}

function listMapKeyProblems(node: PlainObject, path: string): string[] {
  const keys = node['x-kubernetes-list-map-keys'];
  const items = node.items as { required?: string[] } | undefined;
  return Array.isArray(keys) ? keys.filter((key) => !items?.required?.includes(String(key))).map((key) => `${path} map key ${String(key)} is not required`) : [];
}

describe('webAppCrd', () => {
  it('is named and served as tidemark.dev/v1alpha1 WebApp', () => {
    expect(crd.metadata.name).toBe('webapps.tidemark.dev');
    expect(crdSpec).toMatchObject({ group: 'tidemark.dev', scope: 'Namespaced', names: { kind: 'WebApp', plural: 'webapps', singular: 'webapp' } });
    expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
  });

  it('has a structural schema', () => {
    expect(structuralProblems(root, 'openAPIV3Schema')).toEqual([]);
  });

  it('finds a broken schema (the check itself works)', () => {
    expect(structuralProblems({ type: 'object', properties: { a: { description: 'no type' } } }, 'x')).toEqual(['x.a has no type']);
  });

  it('requires the image', () => {
    expect(spec.required).toEqual(['image']);
  });

  it('has a schema with enabled for every feature', () => {
    const features = spec.properties.features?.properties as Record<string, { properties: { enabled: PlainObject } }>;
    expect(Object.keys(features)).toEqual(['config', 'metrics', 'autoscaling', 'disruptionBudget', 'ingress', 'networkPolicy']);
    for (const feature of Object.values(features)) {
      expect(feature.properties.enabled).toEqual({ type: 'boolean', default: false });
    }
  });

  it('has a free-form override for every component', () => {
    const override = spec.properties.override?.properties as Record<string, PlainObject>;
    expect(Object.keys(override)).toEqual(['serviceAccount', 'deployment', 'service', 'configMap', 'hpa', 'pdb', 'ingress', 'networkPolicy']);
    for (const component of Object.values(override)) {
      expect(component).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    }
  });

  it('carries the CEL rules', () => {
    const rules = JSON.stringify(root);
    expect(spec['x-kubernetes-validations']).toEqual([
      expect.objectContaining({ message: expect.stringContaining('features.metrics.port must differ from spec.port') }),
      expect.objectContaining({ message: expect.stringContaining('spec.replicas must not be set when features.autoscaling is enabled') }),
    ]);
    expect(rules).toContain('self.maxReplicas >= self.minReplicas');
    expect(rules).toContain('features.ingress.host is required when ingress is enabled');
    expect(rules).toContain('set features.disruptionBudget.minAvailable or maxUnavailable, not both');
  });

  it('shows Image, Replicas, Ready and Age in kubectl get', () => {
    expect(version.additionalPrinterColumns.map((column) => [column.name, column.jsonPath])).toEqual([
      ['Image', '.spec.image'],
      ['Replicas', '.spec.replicas'],
      ['Ready', '.status.conditions[?(@.type=="Ready")].status'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it('declares the status fields the pipeline writes', () => {
    const status = (root.properties as { status: { properties: PlainObject } }).status;
    expect(Object.keys(status.properties)).toEqual(['observedGeneration', 'conditions', 'lastAppliedRevision', 'lastAttemptedRevision', 'inventory', 'readyReplicas']);
  });

  it('gives spec.features a schema from each feature, so an extra feature extends the CRD', () => {
    const extra = { id: 'tracing', schema: { type: 'object', properties: { enabled: { type: 'boolean' } } }, components: [{ name: 'collector', apiVersion: 'v1', kind: 'Service' }], configure: () => [], manage: () => undefined };
    const extended = JSON.stringify(webAppCrd([...webAppFeatures, extra]));
    expect(extended).toContain('"tracing"');
    expect(extended).toContain('"collector"');
  });
});
