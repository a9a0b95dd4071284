import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isPlainObject, type PlainObject } from '../shared/plain-object';
import { undescribedFields } from '../testing/undescribed-fields';
import { configWatcherCrd } from './configwatcher-crd';

// The seed, as the original example gives it, is kept verbatim in examples/seed-configwatcher.
const seedUrl = new URL('../../../../examples/seed-configwatcher/', import.meta.url);
const seedCrd = parse(readFileSync(new URL('crd.yaml', seedUrl), 'utf8')) as PlainObject;
const seedCr = parse(readFileSync(new URL('cr.yaml', seedUrl), 'utf8')) as PlainObject;

/** withoutAdditions removes what Tidemark adds to the seed CRD, leaving what must equal the seed. */
function withoutAdditions(crd: PlainObject): PlainObject {
  const copy = structuredClone(crd) as { spec: { versions: PlainObject[] } };
  const version = copy.spec.versions[0] as { subresources?: unknown; additionalPrinterColumns?: unknown; schema: { openAPIV3Schema: { properties: { status?: unknown; spec: { properties: PlainObject } } } } };
  delete version.subresources;
  delete version.schema.openAPIV3Schema.properties.status;
  delete version.schema.openAPIV3Schema.properties.spec.properties.strategy;
  // Descriptions where the seed has none (for kubectl explain) and -o wide columns add to its shape, not change it.
  dropAddedDescriptions(version.schema.openAPIV3Schema as PlainObject, seedSchema);
  version.additionalPrinterColumns = (version.additionalPrinterColumns as PlainObject[]).filter((column) => column.priority === undefined);
  return copy as PlainObject;
}

const seedSchema = ((seedCrd.spec as { versions: PlainObject[] }).versions[0] as { schema: { openAPIV3Schema: PlainObject } }).schema.openAPIV3Schema;

function dropAddedDescriptions(node: PlainObject, seed: PlainObject | undefined): void {
  if (seed?.description === undefined) delete node.description;
  const properties = isPlainObject(node.properties) ? node.properties : {};
  const seedProperties = isPlainObject(seed?.properties) ? seed.properties : {};
  for (const [name, child] of Object.entries(properties)) {
    if (isPlainObject(child)) dropAddedDescriptions(child, isPlainObject(seedProperties[name]) ? seedProperties[name] : undefined);
  }
}

function versionOf(crd: PlainObject): PlainObject {
  const spec = crd.spec as { versions: PlainObject[] };
  return spec.versions[0] as PlainObject;
}

describe('configWatcherCrd', () => {
  it('equals the seed CRD except for status and spec.strategy', () => {
    expect(withoutAdditions(configWatcherCrd)).toEqual(seedCrd);
  });

  it('keeps the Korean descriptions, the printer column and the short name of the seed', () => {
    const spec = configWatcherCrd.spec as { names: { shortNames: string[] }; versions: { additionalPrinterColumns: unknown[] }[] };
    expect(JSON.stringify(configWatcherCrd)).toContain('감시할 ConfigMap 이름');
    expect(JSON.stringify(configWatcherCrd)).toContain('재시작할 Pod의 라벨 선택자');
    expect(spec.names.shortNames).toEqual(['cw']);
    const columns = spec.versions[0]?.additionalPrinterColumns as PlainObject[];
    expect(columns.filter((column) => column.priority === undefined)).toEqual([{ name: 'ConfigMap', type: 'string', jsonPath: '.spec.configMap' }]);
  });

  it('describes every field for kubectl explain', () => {
    expect(undescribedFields((versionOf(configWatcherCrd) as { schema: { openAPIV3Schema: PlainObject } }).schema.openAPIV3Schema)).toEqual([]);
  });

  it('adds a status subresource with the fields act() records', () => {
    const version = versionOf(configWatcherCrd) as { subresources: unknown; schema: { openAPIV3Schema: { properties: { status: { properties: PlainObject } } } } };
    expect(version.subresources).toEqual({ status: {} });
    expect(Object.keys(version.schema.openAPIV3Schema.properties.status.properties)).toEqual(
      expect.arrayContaining(['observedGeneration', 'conditions', 'lastConfigMapHash', 'restarts', 'lastRestartTime', 'lastAppliedRevision']),
    );
  });

  it('makes strategy optional with DeletePods as default, so the seed CR stays valid', () => {
    const version = versionOf(configWatcherCrd) as { schema: { openAPIV3Schema: { properties: { spec: { required: string[]; properties: { strategy: PlainObject } } } } } };
    const spec = version.schema.openAPIV3Schema.properties.spec;
    expect(spec.required).toEqual(['configMap', 'podSelector']);
    expect(spec.properties.strategy).toMatchObject({ type: 'string', enum: ['DeletePods', 'RolloutRestart'], default: 'DeletePods' });
    const seedSpec = seedCr.spec;
    expect(isPlainObject(seedSpec) && Object.keys(seedSpec).every((key) => key in spec.properties)).toBe(true);
  });
});
