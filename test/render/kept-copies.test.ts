// A unit's written input tree is kept between renders and only changed files are written again
// (UnitCopies). The renderer must still see exactly the unit's files at each revision: a file
// removed in Git is gone, a changed one is new, and whatever a renderer left behind is removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitSource } from '@tidemark/git-source';
import { commandRenderer, RendererRegistry, UnitRenderer } from '@tidemark/render';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { SourceFixture } from '../git-source/source-fixture';

let server: GitServer;
let copy: WorkingCopy;
let source: GitSource;
let renderer: UnitRenderer;
const fixture = new SourceFixture();
const configMap = (name: string, value: string) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${value}"\n`;

/** objectsAt lists the unit's objects at the source's last revision with their value. */
async function objectsAt(revision: string): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  for (const name of ['a', 'b', 'left-behind']) {
    const object = await source.readObject(revision, `core/ConfigMap/_/${name}`);
    if (object) found[name] = (object.object as unknown as { data: { value: string } }).data.value;
  }
  return found;
}

beforeAll(async () => {
  server = await startGitServer();
  const url = await server.createRepository('kept-copies');
  copy = await server.workingCopy('kept-copies');
  await copy.write('listed/objects.list', '');
  await copy.write('listed/a.yaml', configMap('a', 'one'));
  await copy.write('listed/b.yaml', configMap('b', 'one'));
  await copy.commitAndPush('a unit of two files');
  // Prints every YAML file of its folder, then leaves a file of its own there.
  const registry = new RendererRegistry([commandRenderer({
    name: 'cat-all', markers: ['objects.list'],
    command: ['/bin/sh', '-c', `/bin/cat *.yaml; printf '%b' '${configMap('left-behind', 'x').replaceAll('\n', '\\n')}' > stray.yaml`],
  })]);
  renderer = new UnitRenderer({ registry, tools: { kustomize: '/nonexistent', helm: '/nonexistent', sops: '/nonexistent' } });
  source = await fixture.open({ url }, { rendering: { renderer } });
}, 120_000);

afterAll(async () => {
  await renderer?.close();
  await fixture.cleanup();
  await server?.stop();
});

describe('kept input trees', () => {
  it('render a removed file as gone, a changed file as changed, and nothing a renderer left behind', async () => {
    const first = await source.poll();
    expect(first.errors.map((error) => error.message)).toEqual([]);
    expect(await objectsAt(first.revision)).toEqual({ a: 'one', b: 'one' });

    await copy.delete('listed/b.yaml');
    await copy.write('listed/a.yaml', configMap('a', 'two'));
    await copy.commitAndPush('b removed, a changed');
    const second = await source.poll();
    expect(second.render?.rendered).toBe(1);
    expect(await objectsAt(second.revision)).toEqual({ a: 'two' });

    await copy.write('listed/b.yaml', configMap('b', 'three'));
    await copy.commitAndPush('b back');
    const third = await source.poll();
    expect(await objectsAt(third.revision)).toEqual({ a: 'two', b: 'three' });
  });
});
