import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { builtinKinds } from './builtin-kinds';
import { crdFiles } from './crd-files';

const crdDirectory = new URL('../../../../deploy/crds/', import.meta.url);

describe('deploy/crds', () => {
  const files = crdFiles(builtinKinds);

  it('holds every built-in CRD, and no generated file for a kind that is gone', () => {
    const present = readdirSync(crdDirectory);
    const generated = present.filter((fileName) => readFileSync(new URL(fileName, crdDirectory), 'utf8').startsWith('# Generated from libs/kinds'));
    expect(files.map((file) => file.fileName).sort()).toEqual(['configwatchers.k8spatterns.com.yaml', 'webapps.tidemark.dev.yaml']);
    expect(generated.sort()).toEqual(files.map((file) => file.fileName).sort());
  });

  it.each(files.map((file) => [file.fileName, file.content]))('%s matches the TypeScript (run `npx tsx scripts/generate-crds.ts`)', (fileName, content) => {
    expect(readFileSync(new URL(fileName, crdDirectory), 'utf8')).toBe(content);
  });

  it('round-trips: the YAML parses back to the CRD objects', () => {
    for (const kind of builtinKinds) {
      const file = files.find((candidate) => candidate.fileName === `${kind.crd.metadata.name}.yaml`);
      expect(parse(file?.content ?? '')).toEqual(kind.crd);
    }
  });
});
