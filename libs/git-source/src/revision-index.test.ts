import { describe, expect, it } from 'vitest';
import { defaultLoadLimits } from './load-limits';
import { loadManifestFile } from './load-manifest-file';
import { diffObjects } from './object-change';
import { RevisionIndex, type FileUpdate } from './revision-index';

const configMap = (name: string, value = '1') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: "${value}"\n`;

function file(path: string, text: string, blobOid = `${path}@${text.length}`): FileUpdate {
  const loaded = loadManifestFile(new TextEncoder().encode(text), defaultLoadLimits);
  return { path, content: { path, blobOid, entries: loaded.entries, problems: loaded.problems } };
}

function step(before: RevisionIndex, updates: FileUpdate[]) {
  const { index, touched } = before.update(updates);
  return { index, changes: diffObjects(before, index, touched).map((change) => `${change.change} ${change.objectKey} ${change.path}`) };
}

describe('RevisionIndex and diffObjects', () => {
  const first = step(RevisionIndex.empty(), [file('a.yaml', configMap('a') + '---\n' + configMap('b')), file('c.yaml', configMap('c'))]);

  it('lists every object of a first revision as added', () => {
    expect(first.changes).toEqual(['added core/ConfigMap/_/a a.yaml', 'added core/ConfigMap/_/b a.yaml', 'added core/ConfigMap/_/c c.yaml']);
  });

  it('reports only the object that changed inside a changed file', () => {
    expect(step(first.index, [file('a.yaml', configMap('a', '2') + '---\n' + configMap('b'))]).changes).toEqual(['changed core/ConfigMap/_/a a.yaml']);
  });

  it('reports removal when a file is deleted, and nothing when an object moves files unchanged', () => {
    expect(step(first.index, [{ path: 'c.yaml' }]).changes).toEqual(['removed core/ConfigMap/_/c c.yaml']);
    expect(step(first.index, [{ path: 'c.yaml' }, file('moved/c.yaml', configMap('c'))]).changes).toEqual([]);
  });

  it('turns an object declared twice into an error naming both places, and back', () => {
    const duplicated = step(first.index, [file('d.yaml', `# one\n${configMap('c')}`)]);
    expect(duplicated.changes).toEqual(['changed core/ConfigMap/_/c c.yaml']);
    const found = duplicated.index.lookup('core/ConfigMap/_/c');
    expect(found && 'error' in found && found.error).toMatchObject({ code: 'DuplicateObject', message: expect.stringContaining('c.yaml:1 and d.yaml:2') });
    expect(duplicated.index.errors()).toHaveLength(1);
    expect(step(duplicated.index, [{ path: 'd.yaml' }]).changes).toEqual(['changed core/ConfigMap/_/c c.yaml']);
  });

  it('treats the same object written with and without namespace: default as a duplicate naming both files', () => {
    const withDefault = configMap('c').replace('  name: c\n', '  name: c\n  namespace: default\n');
    const { index } = step(first.index, [file('e.yaml', withDefault)]);
    for (const key of ['core/ConfigMap/_/c', 'core/ConfigMap/default/c']) {
      const found = index.lookup(key);
      expect(found && 'error' in found && found.error, key).toMatchObject({ code: 'DuplicateObject', message: expect.stringMatching(/c\.yaml:1 and e\.yaml:1|e\.yaml:1 and c\.yaml:1/) });
    }
    expect(index.errors().filter((error) => error.code === 'DuplicateObject')).toHaveLength(1);
    const resolved = step(index, [{ path: 'c.yaml' }]).index.lookup('core/ConfigMap/default/c');
    expect(resolved && 'object' in resolved).toBe(true);
  });

  it('treats a duplicate inside one file the same way', () => {
    const { index } = step(RevisionIndex.empty(), [file('x.yaml', configMap('x') + '---\n' + configMap('x', '2'))]);
    const found = index.lookup('core/ConfigMap/_/x');
    expect(found && 'error' in found && found.error.message).toContain('x.yaml:1 and x.yaml:8');
  });

  it('holds the objects of a file that stops parsing instead of removing them, and only those', () => {
    const broken = step(first.index, [file('a.yaml', 'apiVersion: v1\nkind: [\n')]);
    expect(broken.changes).toEqual(['changed core/ConfigMap/_/a a.yaml', 'changed core/ConfigMap/_/b a.yaml']);
    const found = broken.index.lookup('core/ConfigMap/_/a');
    expect(found && 'error' in found && found.error).toMatchObject({ code: 'ParseFailed', path: 'a.yaml', line: expect.any(Number) });
    expect(broken.index.lookup('core/ConfigMap/_/c')).toMatchObject({ object: { path: 'c.yaml' } });
    const fixed = step(broken.index, [file('a.yaml', configMap('a'))]);
    expect(fixed.changes).toEqual(['changed core/ConfigMap/_/a a.yaml', 'removed core/ConfigMap/_/b a.yaml']);
  });

  it('holds an object whose document lost its name', () => {
    const text = configMap('a') + '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n';
    const broken = step(first.index, [file('a.yaml', text)]);
    expect(broken.changes).toEqual(['changed core/ConfigMap/_/b a.yaml']);
    const found = broken.index.lookup('core/ConfigMap/_/b');
    expect(found && 'error' in found && found.error.message).toBe('core/ConfigMap/_/b cannot be read: a.yaml:8: metadata.name is missing from ConfigMap');
  });
});
