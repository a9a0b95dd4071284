// The two Argo CD example apps, pushed as a team keeps them, render to exactly the objects the
// real `kustomize build` and `helm template` produce from the same folders.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitSource, PollResult } from '@tidemark/git-source';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { SourceFixture } from '../git-source/source-fixture';
import { examplesDir, helmTemplate, kustomizeBuild, objectsOf, renderTools, rendering, type Tools } from './render-fixture';

let server: GitServer;
let copy: WorkingCopy;
let source: GitSource;
let poll: PollResult;
let tools: Tools;
const fixture = new SourceFixture();

beforeAll(async () => {
  tools = await renderTools();
  server = await startGitServer();
  const url = await server.createRepository('examples');
  copy = await server.workingCopy('examples');
  await cp(join(examplesDir, 'kustomize-guestbook'), join(copy.dir, 'apps/kustomize-guestbook'), { recursive: true });
  await cp(join(examplesDir, 'helm-guestbook'), join(copy.dir, 'apps/helm-guestbook'), { recursive: true });
  await copy.write('apps/plain/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: "1"\n');
  await copy.commitAndPush('argocd-example-apps');
  source = await fixture.open({ url, path: 'apps' }, { rendering: rendering(tools) });
  poll = await source.poll();
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

async function readAll(keys: Iterable<string>): Promise<Map<string, unknown>> {
  const read = new Map<string, unknown>();
  for (const key of keys) read.set(key, (await source.readObject(poll.revision, key))?.object);
  return read;
}

describe('argocd-example-apps', () => {
  it('reads the repository without errors: chart templates, values and kustomizations are not manifests', () => {
    expect(poll.errors).toEqual([]);
  });

  it('kustomize-guestbook renders exactly what `kustomize build` renders', async () => {
    const expected = objectsOf(await kustomizeBuild(tools, join(examplesDir, 'kustomize-guestbook')));
    expect(expected.size).toBe(2);
    expect(await readAll(expected.keys())).toEqual(expected);
  });

  it('helm-guestbook renders exactly what `helm template` renders', async () => {
    const expected = objectsOf(await helmTemplate(tools, 'helm-guestbook', join(examplesDir, 'helm-guestbook'), ['--namespace', 'default', '--include-crds', '--skip-tests']));
    expect(expected.size).toBe(2);
    expect(await readAll(expected.keys())).toEqual(expected);
  });

  it('lists every rendered and plain object, and no other', () => {
    expect(poll.changes.map((change) => `${change.change} ${change.objectKey} ${change.path}`).sort()).toEqual([
      'added apps/Deployment/_/helm-guestbook apps/helm-guestbook/',
      'added apps/Deployment/_/kustomize-guestbook-ui apps/kustomize-guestbook/',
      'added core/ConfigMap/_/plain apps/plain/configmap.yaml',
      'added core/Service/_/helm-guestbook apps/helm-guestbook/',
      'added core/Service/_/kustomize-guestbook-ui apps/kustomize-guestbook/',
    ]);
  });

  it('gives each rendered object its provenance: the unit folder and renderer, at the revision', async () => {
    const found = await source.readObject(poll.revision, 'apps/Deployment/_/kustomize-guestbook-ui');
    expect(found).toMatchObject({ path: 'apps/kustomize-guestbook/', unit: { renderer: 'kustomize', folder: 'apps/kustomize-guestbook' } });
    const chart = await source.readObject(poll.revision, 'core/Service/_/helm-guestbook');
    expect(chart?.unit).toEqual({ renderer: 'helm', folder: 'apps/helm-guestbook' });
  });
});
