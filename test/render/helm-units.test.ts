// Helm units: a chart with a CRD and a CR, a vendored dependency, values files named in
// tidemark-render.yaml, hooks, and a dependency that would need a download.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitSource, PollResult } from '@tidemark/git-source';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { SourceFixture } from '../git-source/source-fixture';
import { helmTemplate, objectsOf, renderTools, rendering, type Tools } from './render-fixture';

let server: GitServer;
let copy: WorkingCopy;
let source: GitSource;
let poll: PollResult;
let tools: Tools;
const fixture = new SourceFixture();

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`;

async function writeCharts(): Promise<void> {
  await copy.write('charts/widgets/Chart.yaml', 'apiVersion: v2\nname: widgets\nversion: 0.1.0\ndependencies:\n  - name: sidecar\n    version: 0.1.0\n    repository: https://charts.example.com\n');
  await copy.write('charts/widgets/values.yaml', 'size: small\ncolor: blue\n');
  await copy.write('charts/widgets/crds/widget-crd.yaml', crd);
  await copy.write('charts/widgets/templates/widget.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}-widget\nspec:\n  size: {{ .Values.size }}\n  color: {{ .Values.color }}\n');
  await copy.write('charts/widgets/templates/migrate-hook.yaml', 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-migrate\n  annotations:\n    helm.sh/hook: pre-install,pre-upgrade\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: migrate, image: busybox}]\n');
  await copy.write('charts/widgets/templates/tests/test-connection.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n  annotations:\n    helm.sh/hook: test\nspec:\n  containers: [{name: t, image: busybox}]\n');
  await copy.write('charts/widgets/charts/sidecar/Chart.yaml', 'apiVersion: v2\nname: sidecar\nversion: 0.1.0\n');
  await copy.write('charts/widgets/charts/sidecar/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-sidecar\ndata:\n  mode: vendored\n');
  await copy.write('charts/widgets/tidemark-render.yaml', 'helm:\n  releaseName: shop\n  namespace: shop\n  valuesFiles: [../../values/widgets-prod.yaml]\n  values:\n    color: green\n');
  await copy.write('values/widgets-prod.yaml', 'size: large\n');
  await copy.write('charts/needs-download/Chart.yaml', 'apiVersion: v2\nname: needs-download\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 19.0.0\n    repository: https://charts.bitnami.com/bitnami\n');
  await copy.write('charts/needs-download/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: never\n');
}

beforeAll(async () => {
  tools = await renderTools();
  server = await startGitServer();
  const url = await server.createRepository('charts');
  copy = await server.workingCopy('charts');
  await writeCharts();
  await copy.commitAndPush('charts');
  source = await fixture.open({ url, path: 'charts' }, { rendering: rendering(tools) });
  poll = await source.poll();
});

afterAll(async () => {
  await fixture.cleanup();
  await server?.stop();
});

describe('helm charts', () => {
  it('renders exactly what `helm template` renders with the same release, namespace and values, placed as `helm install -n` places it', async () => {
    const chart = join(copy.dir, 'charts/widgets');
    const printed = objectsOf(await helmTemplate(tools, 'shop', chart, [
      '--namespace', 'shop', '--include-crds', '--skip-tests', '--values', join(copy.dir, 'values/widgets-prod.yaml'), '--set', 'color=green',
    ]));
    expect([...printed.keys()].sort()).toEqual([
      'apiextensions.k8s.io/CustomResourceDefinition/_/widgets.example.com', 'batch/Job/_/shop-migrate', 'core/ConfigMap/_/shop-sidecar', 'example.com/Widget/_/shop-widget',
    ]);
    // helm template prints namespace-less objects; helm install -n shop puts the namespaced ones (the Widget's CRD says Namespaced) in shop.
    const expected = new Map([...printed].map(([key, object]) => {
      if (key.startsWith('apiextensions.k8s.io/')) return [key, object];
      return [key.replace('/_/', '/shop/'), { ...object, metadata: { ...(object.metadata as object), namespace: 'shop' } }];
    }));
    for (const [key, object] of expected) expect((await source.readObject(poll.revision, key))?.object, key).toEqual(object);
    expect((await source.readObject(poll.revision, 'example.com/Widget/shop/shop-widget'))?.object).toMatchObject({ spec: { size: 'large', color: 'green' } });
  });

  it('renders hooks with the chart (the pipeline runs them as sync hooks) and skips test hooks', async () => {
    expect(await source.readObject(poll.revision, 'batch/Job/shop/shop-migrate')).toBeDefined();
    expect(await source.readObject(poll.revision, 'core/Pod/shop/shop-test')).toBeUndefined();
    expect(await source.readObject(poll.revision, 'core/Pod/_/shop-test')).toBeUndefined();
  });

  it('refuses a dependency that needs a download, naming it', () => {
    const refused = poll.errors.find((error) => error.path === 'charts/needs-download/');
    expect(refused?.code).toBe('ChartDependencyMissing');
    expect(refused?.message).toContain('dependency "redis" from https://charts.bitnami.com/bitnami is not vendored in charts/');
    expect(poll.errors).toHaveLength(1);
  });

  it('re-renders the chart when a values file outside it changes', async () => {
    await copy.write('values/widgets-prod.yaml', 'size: huge\n');
    await copy.commitAndPush('bigger widgets');
    const next = await source.poll();
    expect(next.changes.map((change) => `${change.change} ${change.objectKey}`)).toEqual(['changed example.com/Widget/shop/shop-widget']);
  });
});
