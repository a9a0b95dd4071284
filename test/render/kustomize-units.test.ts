// Kustomize units as teams keep them: a base outside the source path, staging and production
// overlays with components, patches, generators, images, replicas, namePrefix and namespace.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TerminalError } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { SourceFixture } from '../git-source/source-fixture';
import { kustomizeBuild, objectsOf, renderTools, rendering, type Tools } from './render-fixture';

let server: GitServer;
let copy: WorkingCopy;
let source: GitSource;
let tools: Tools;
const fixture = new SourceFixture();

const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: ${image}
          envFrom:
            - configMapRef: {name: web-config}
`;

async function writeBase(greeting: string): Promise<void> {
  await copy.write('base/deployment.yaml', deployment('nginx:1.25'));
  await copy.write('base/service.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n    - port: 80\n');
  await copy.write('base/kustomization.yaml', `resources:\n  - deployment.yaml\n  - service.yaml\nconfigMapGenerator:\n  - name: web-config\n    literals:\n      - GREETING=${greeting}\n`);
}

async function writeOverlays(): Promise<void> {
  await copy.write('components/monitoring/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonAnnotations:\n  monitoring: enabled\n');
  await copy.write('deploy/overlays/staging/kustomization.yaml', [
    'namespace: staging', 'namePrefix: staging-', 'resources:', '  - ../../../base', 'components:', '  - ../../../components/monitoring',
    'images:', '  - name: nginx', '    newTag: "1.26"', 'replicas:', '  - name: web', '    count: 2',
    'patches:', '  - path: resources-patch.yaml',
    '  - target: {kind: Service, name: web}', '    patch: |-', '      - op: add', '        path: /metadata/labels', '        value: {tier: front}',
  ].join('\n'));
  await copy.write('deploy/overlays/staging/resources-patch.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          resources: {limits: {memory: 128Mi}}\n');
  await copy.write('deploy/overlays/production/kustomization.yaml', 'namespace: production\nnamePrefix: prod-\nresources:\n  - ../../../base\nreplicas:\n  - name: web\n    count: 5\n');
  await copy.write('deploy/plain/namespace.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: staging\n');
}

async function keysOf(revision: string): Promise<string[]> {
  return (await source.listObjects(revision)).objects.map((object) => object.objectKey);
}

async function readError(revision: string, key: string): Promise<TerminalError> {
  const error = await source.readObject(revision, key).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

beforeAll(async () => {
  tools = await renderTools();
  server = await startGitServer();
  const url = await server.createRepository('overlays');
  copy = await server.workingCopy('overlays');
  await writeBase('hello');
  await writeOverlays();
  await copy.commitAndPush('base and overlays');
  source = await fixture.open({ url, path: 'deploy' }, { rendering: rendering(tools) });
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('kustomize overlays', () => {
  let revision: string;

  it('renders each overlay exactly as `kustomize build` does, base outside the source path', async () => {
    const poll = await source.poll();
    revision = poll.revision;
    expect(poll.errors).toEqual([]);
    for (const overlay of ['staging', 'production']) {
      const expected = objectsOf(await kustomizeBuild(tools, join(copy.dir, 'deploy/overlays', overlay)));
      expect(expected.size).toBe(3);
      for (const [key, object] of expected) {
        const found = await source.readObject(revision, key);
        expect(found?.object, key).toEqual(object);
        expect(found?.path).toBe(`deploy/overlays/${overlay}/`);
      }
    }
    const staging = (await source.readObject(revision, 'apps/Deployment/staging/staging-web'))?.object as unknown as { spec: { replicas: number; template: { spec: { containers: Array<{ image: string; resources: unknown }> } } }; metadata: { annotations: Record<string, string> } };
    expect(staging.spec.replicas).toBe(2);
    expect(staging.spec.template.spec.containers[0]).toMatchObject({ image: 'nginx:1.26', resources: { limits: { memory: '128Mi' } } });
    expect(staging.metadata.annotations).toEqual({ monitoring: 'enabled' });
    expect((await source.readObject(revision, 'core/Service/staging/staging-web'))?.object.metadata.labels).toEqual({ tier: 'front' });
  });

  it('reads plain folders beside units, and no file under a unit as a manifest', async () => {
    expect((await keysOf(revision)).sort()).toEqual([
      'apps/Deployment/production/prod-web', 'apps/Deployment/staging/staging-web',
      'core/ConfigMap/production/prod-web-config-' + (await configMapSuffix('production', 'prod-web-config-')),
      'core/ConfigMap/staging/staging-web-config-' + (await configMapSuffix('staging', 'staging-web-config-')),
      'core/Namespace/_/staging',
      'core/Service/production/prod-web', 'core/Service/staging/staging-web',
    ].sort());
  });

  it('re-renders only the overlay whose files changed', async () => {
    await copy.write('deploy/overlays/production/kustomization.yaml', 'namespace: production\nnamePrefix: prod-\nresources:\n  - ../../../base\nreplicas:\n  - name: web\n    count: 6\n');
    await copy.commitAndPush('production: 6 replicas');
    const poll = await source.poll();
    revision = poll.revision;
    expect(poll.changes.map((change) => `${change.change} ${change.objectKey}`)).toEqual(['changed apps/Deployment/production/prod-web']);
    expect(poll.render).toMatchObject({ planned: 2, rendered: 1 });
    const idle = await source.poll();
    expect(idle.moved).toBe(false);
    expect(idle.render?.rendered).toBe(0);
  });

  it('re-renders every overlay of a changed base; a generator change renames the ConfigMap and rolls the Deployment', async () => {
    const before = await source.readObject(revision, 'apps/Deployment/staging/staging-web');
    await writeBase('bonjour');
    await copy.commitAndPush('base: new greeting');
    const poll = await source.poll();
    revision = poll.revision;
    const summary = poll.changes.map((change) => `${change.change} ${change.objectKey.replace(/config-[a-z0-9]+$/, 'config-HASH')}`).sort();
    expect(summary).toEqual([
      'added core/ConfigMap/production/prod-web-config-HASH', 'added core/ConfigMap/staging/staging-web-config-HASH',
      'changed apps/Deployment/production/prod-web', 'changed apps/Deployment/staging/staging-web',
      'removed core/ConfigMap/production/prod-web-config-HASH', 'removed core/ConfigMap/staging/staging-web-config-HASH',
    ]);
    const after = await source.readObject(revision, 'apps/Deployment/staging/staging-web');
    const configRef = (object: unknown) => (object as { spec: { template: { spec: { containers: Array<{ envFrom: Array<{ configMapRef: { name: string } }> }> } } } }).spec.template.spec.containers[0]?.envFrom[0]?.configMapRef.name;
    expect(configRef(after?.object)).not.toBe(configRef(before?.object));
    expect(configRef(after?.object)).toMatch(/^staging-web-config-/);
  });

  it('keeps the last good objects of a broken kustomization, with kustomize\'s message', async () => {
    await copy.write('deploy/overlays/staging/kustomization.yaml', 'namespace: staging\nnamePrefix: staging-\nresources:\n  - ../../../base\n  - missing-file.yaml\n');
    await copy.commitAndPush('staging: broken');
    const poll = await source.poll();
    revision = poll.revision;
    expect(poll.changes.filter((change) => change.change === 'removed')).toEqual([]);
    expect(poll.errors.map((error) => [error.code, error.path])).toEqual([['RenderFailed', 'deploy/overlays/staging/']]);
    expect(poll.errors[0]?.message).toContain('missing-file.yaml');
    const error = await readError(revision, 'apps/Deployment/staging/staging-web');
    expect(error.message).toContain('deploy/overlays/staging');
    expect(error.message).toContain('missing-file.yaml');
    expect(error.message).not.toContain('tidemark-render-');
  });

  it('refuses a remote base with a clear error, without reaching the network', async () => {
    await copy.write('deploy/overlays/remote/kustomization.yaml', 'resources:\n  - https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v5.0.0\n');
    await copy.commitAndPush('a remote base');
    const poll = await source.poll();
    const remote = poll.errors.find((error) => error.path === 'deploy/overlays/remote/');
    expect(remote?.code).toBe('RemoteBaseRefused');
    expect(remote?.message).toContain('is a remote base');
  });

  it('refuses a symlink in a unit and a base past the repository root', async () => {
    await copy.symlink('deploy/overlays/linked/passwd.yaml', '/etc/passwd');
    await copy.write('deploy/overlays/linked/kustomization.yaml', 'resources:\n  - passwd.yaml\n');
    await copy.write('deploy/overlays/escape/kustomization.yaml', 'resources:\n  - ../../../../outside\n');
    await copy.commitAndPush('escapes');
    const poll = await source.poll();
    const byPath = new Map(poll.errors.map((error) => [error.path, error]));
    expect(byPath.get('deploy/overlays/linked/')?.code).toBe('SymlinkRefused');
    expect(byPath.get('deploy/overlays/linked/')?.message).toContain('deploy/overlays/linked/passwd.yaml is a symbolic link');
    expect(byPath.get('deploy/overlays/escape/')?.code).toBe('PathEscapeRefused');
  });
});

async function configMapSuffix(namespace: string, prefix: string): Promise<string> {
  const key = (await keysOf((await source.listObjects(source.revision ?? '')).revision)).find((candidate) => candidate.startsWith(`core/ConfigMap/${namespace}/${prefix}`));
  return key?.slice(`core/ConfigMap/${namespace}/${prefix}`.length) ?? 'none';
}
