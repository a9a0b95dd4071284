import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { isPlainObject, type PlainObject } from '../../shared/plain-object';
import { webAppFeatures } from '../features/index';
import { undescribedFields } from '../../testing/undescribed-fields';
import { webAppCrd } from './webapp-crd';

const crd = webAppCrd(webAppFeatures);
type Version = { name: string; served: boolean; storage: boolean; deprecated?: boolean; deprecationWarning?: string; subresources: PlainObject; additionalPrinterColumns: PlainObject[]; schema: { openAPIV3Schema: PlainObject } };
const crdSpec = crd.spec as { group: string; scope: string; names: PlainObject; versions: Version[]; conversion: PlainObject };
const [beta, alpha] = crdSpec.versions as [Version, Version];
const version = alpha;
const root = version.schema.openAPIV3Schema;
const spec = (root.properties as { spec: PlainObject & { properties: Record<string, PlainObject> } }).spec;
const betaRoot = beta.schema.openAPIV3Schema;
const betaSpec = (betaRoot.properties as { spec: PlainObject & { properties: Record<string, PlainObject> } }).spec;

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
  it('serves v1beta1 (storage) and v1alpha1 (deprecated, with a warning), converted by a webhook', () => {
    expect(crd.metadata.name).toBe('webapps.tidemark.dev');
    expect(crdSpec).toMatchObject({ group: 'tidemark.dev', scope: 'Namespaced', names: { kind: 'WebApp', plural: 'webapps', singular: 'webapp' } });
    expect(beta).toMatchObject({ name: 'v1beta1', served: true, storage: true, subresources: { status: {} } });
    expect(beta.deprecated).toBeUndefined();
    expect(alpha).toMatchObject({ name: 'v1alpha1', served: true, storage: false, deprecated: true, subresources: { status: {} } });
    expect(alpha.deprecationWarning).toContain('use tidemark.dev/v1beta1');
    expect(crdSpec.conversion).toMatchObject({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } });
  });

  it('describes every field of both versions, for kubectl explain', () => {
    expect(undescribedFields(root)).toEqual([]);
    expect(undescribedFields(betaRoot)).toEqual([]);
    expect(undescribedFields({ properties: { a: { type: 'string' }, b: { type: 'object', description: 'b', properties: { c: { type: 'string' } } } } })).toEqual(['a', 'b.c']);
  });

  it('has a structural v1beta1 schema: the image in parts, features a list keyed by name', () => {
    expect(structuralProblems(betaRoot, 'openAPIV3Schema')).toEqual([]);
    expect(betaSpec.required).toEqual(['image']);
    expect(Object.keys(betaSpec.properties.image?.properties as PlainObject)).toEqual(['repository', 'tag', 'digest', 'pullPolicy']);
    const features = betaSpec.properties.features as PlainObject & { items: { properties: Record<string, PlainObject>; 'x-kubernetes-validations': unknown[] } };
    expect(features).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], maxItems: 6 });
    expect(features.items.properties.name).toMatchObject({ enum: ['config', 'metrics', 'autoscaling', 'disruptionBudget', 'ingress', 'networkPolicy'] });
    expect(Object.keys(features.items.properties.ingress?.properties as PlainObject)).toEqual(['host', 'path', 'className', 'tlsSecretName']);
    expect(JSON.stringify(features.items.properties.ingress)).toContain('"rule":"(has(self.host) && size(self.host) > 0)"');
    expect(JSON.stringify(features.items)).not.toContain('self.enabled');
    expect(JSON.stringify(features.items['x-kubernetes-validations'])).toContain("self.name != 'ingress' || has(self.ingress)");
    expect(JSON.stringify(betaSpec['x-kubernetes-validations'])).toContain("self.features.exists(f, f.name == 'autoscaling')");
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
      expect(feature.properties.enabled).toMatchObject({ type: 'boolean', default: false });
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

  it('shows the image, replicas, readiness and why in kubectl get; revision and message with -o wide', () => {
    const columns = (v: Version) => v.additionalPrinterColumns.map((column) => [column.name, column.jsonPath, column.priority ?? 0]);
    expect(columns(beta)).toEqual([
      ['Image', '.spec.image.repository', 0],
      ['Tag', '.spec.image.tag', 0],
      ['Replicas', '.spec.replicas', 0],
      ['Available', '.status.readyReplicas', 0],
      ['Ready', '.status.conditions[?(@.type=="Ready")].status', 0],
      ['Reason', '.status.conditions[?(@.type=="Ready")].reason', 0],
      ['Revision', '.status.lastAppliedRevision', 1],
      ['Message', '.status.conditions[?(@.type=="Ready")].message', 1],
      ['Age', '.metadata.creationTimestamp', 0],
    ]);
    expect(columns(alpha)[0]).toEqual(['Image', '.spec.image', 0]);
    expect(columns(alpha).slice(1)).toEqual(columns(beta).slice(2));
  });

  it('declares spec.dependsOn in both served versions, a described set of references', () => {
    for (const schema of [spec, betaSpec]) {
      expect(schema.properties.dependsOn).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 512 } });
      expect(String((schema.properties.dependsOn as PlainObject).description)).toContain('[source:]group/version/Kind/namespace/name');
    }
  });

  it('declares the status fields the pipeline writes', () => {
    const status = (root.properties as { status: { properties: PlainObject } }).status;
    expect(Object.keys(status.properties)).toEqual(['observedGeneration', 'conditions', 'lastAppliedRevision', 'lastAttemptedRevision', 'inventory', 'readyReplicas']);
  });

  it('gives spec.features a schema from each feature, so an extra feature extends the CRD', () => {
    const extra = { id: 'tracing', schema: Type.Object({ enabled: Type.Optional(Type.Boolean()) }), components: [{ name: 'collector', apiVersion: 'v1', kind: 'Service' }], configure: () => [], manage: () => undefined };
    const extended = JSON.stringify(webAppCrd([...webAppFeatures, extra]));
    expect(extended).toContain('"tracing"');
    expect(extended).toContain('"collector"');
  });
});
