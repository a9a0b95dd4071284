// Two public repositories pushed as their own READMEs say, applied by the real pipeline to the rig's
// API server: Online Boutique's `kustomize/` with the two components its kustomize README enables
// (cymbal-branding, google-cloud-operations), and podinfo 6.14.1's chart as release `frontend` with a
// values file and inline values. What Tidemark renders is exactly what `kubectl apply -k` (the pinned
// kustomize build) and `helm template --kube-version <the rig's version>` print, and the live objects
// hold every field of it. Sources: test/render/upstream/NOTICE.md.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { CapabilitiesCache, ClusterConnection, getObject, readCapabilities } from '@tidemark/cluster';
import { kubectl } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { helmTemplate, kustomizeBuild, objectsOf, renderTools, rendering, repoRoot, type Tools } from './render-fixture';

const upstream = join(repoRoot, 'test/render/upstream');
const suffix = Math.random().toString(36).slice(2, 8);
// The namespace `kubectl apply -k` would use from the context, and podinfo's release namespace (`-n test` in the issue).
const boutiqueNamespace = `tm-boutique-${suffix}`;
const releaseNamespace = `test-${suffix}`;
const inlineValues = { replicaCount: 2, ui: { message: 'rendered by Tidemark' }, hpa: { enabled: false } };
const enabledComponents = 'components:\n- components/cymbal-branding\n- components/google-cloud-operations\n';

let tools: Tools;
let harness: PipelineHarness;
let connection: ClusterConnection;
let work: string;
let results: Awaited<ReturnType<PipelineHarness['pushAndReconcile']>>;

/** boutiqueKustomization is the root kustomization with the README's two components enabled, as a user edits it. */
async function boutiqueKustomization(): Promise<string> {
  const text = await readFile(join(upstream, 'online-boutique/kustomize/kustomization.yaml'), 'utf8');
  const edited = text.replace(/^components:\n(# .*\n)+/m, enabledComponents);
  if (edited === text) throw new Error('the vendored kustomization.yaml no longer has its commented components list');
  return edited;
}

beforeAll(async () => {
  tools = await renderTools();
  connection = ClusterConnection.connect({ cluster: 'shared', kubeconfig: inject('kubeconfig') });
  const capabilities = new CapabilitiesCache(() => connection);
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'), {
    rendering: rendering(tools, { clusters: [{ name: 'shared', labels: {}, variables: {} }], capabilities }),
    pipeline: { defaultNamespace: boutiqueNamespace },
  });
  work = await mkdtemp(join(tmpdir(), 'tidemark-upstream-'));
  await harness.repo.write('namespaces.yaml', [boutiqueNamespace, releaseNamespace].map((name) => stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).join('---\n'));
  await cp(join(upstream, 'online-boutique/kustomize'), join(harness.repo.dir, 'kustomize'), { recursive: true });
  await harness.repo.write('kustomize/kustomization.yaml', await boutiqueKustomization());
  await cp(join(upstream, 'podinfo/charts/podinfo'), join(harness.repo.dir, 'charts/podinfo'), { recursive: true });
  await harness.repo.write('charts/podinfo/tidemark-render.yaml', stringify({ helm: { releaseName: 'frontend', namespace: releaseNamespace, valuesFiles: ['values-prod.yaml'], values: inlineValues } }));
  results = await harness.pushAndReconcile('Online Boutique and podinfo, as their READMEs deploy them');
}, 600_000);

afterAll(async () => {
  for (const namespace of [boutiqueNamespace, releaseNamespace]) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  connection?.close();
  await harness?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** expectAppliedExactly checks that Tidemark read each object exactly as expected, and that the live object holds every field of it. */
async function expectAppliedExactly(expected: Map<string, Record<string, unknown>>, namespace: string): Promise<void> {
  for (const [key, object] of expected) {
    expect(results.results.get(key), key).not.toBeInstanceOf(Error);
    expect((await harness.source.readObject(results.poll.revision, key, 'shared'))?.object, key).toEqual(object);
    const metadata = object.metadata as { name: string; namespace?: string };
    const live = await getObject(connection, { apiVersion: String(object.apiVersion), kind: String(object.kind), namespace: metadata.namespace ?? namespace, name: metadata.name });
    expect(live, key).toMatchObject(canonicalQuantities(object) as Record<string, unknown>);
  }
}

/**
 * canonicalQuantities writes resource quantities as the API server stores them (`1000m` CPU is
 * `1`), which is what `kubectl get` shows after `kubectl apply` too; every other field is untouched.
 */
function canonicalQuantities(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => canonicalQuantities(item));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, canonicalQuantities(item, name)]));
  if (key === 'cpu' && typeof value === 'string') {
    const milli = /^(\d+)000m$/.exec(value);
    if (milli) return milli[1];
  }
  return value;
}

describe('real repositories, black-box', () => {
  it('plans the units as kubectl, Flux and Argo CD see them, with no error', () => {
    expect(results.poll.errors).toEqual([]);
    const units = new Set(results.poll.changes.map((change) => change.path).filter((path) => path.endsWith('/')));
    expect([...units].sort()).toEqual(['charts/podinfo/', 'kustomize/']);
  });

  it('applies Online Boutique exactly as `kubectl apply -k kustomize/` with the README\'s components', async () => {
    const built = join(work, 'kustomize');
    await cp(join(upstream, 'online-boutique/kustomize'), built, { recursive: true });
    await writeFile(join(built, 'kustomization.yaml'), await boutiqueKustomization());
    const expected = objectsOf(await kustomizeBuild(tools, built));
    expect(expected.size).toBe(38);
    const frontend = expected.get('apps/Deployment/_/frontend') as { spec: { template: { spec: { containers: Array<{ env: Array<{ name: string }> }> } } } };
    expect(frontend.spec.template.spec.containers[0]!.env.map((entry) => entry.name)).toContain('CYMBAL_BRANDING');
    await expectAppliedExactly(expected, boutiqueNamespace);
  });

  it('applies podinfo\'s chart exactly as `helm template --kube-version <cluster>`, in the release namespace', async () => {
    const { kubeVersion } = await readCapabilities(connection);
    const inline = join(work, 'inline-values.yaml');
    await writeFile(inline, stringify(inlineValues));
    const chart = join(upstream, 'podinfo/charts/podinfo');
    const printed = objectsOf(await helmTemplate(tools, 'frontend', chart, ['--namespace', releaseNamespace, '--kube-version', kubeVersion, '--values', join(chart, 'values-prod.yaml'), '--values', inline, '--skip-tests']));
    // What `helm install -n` does with the printed objects: the namespace-less (all namespaced here) go to the release namespace.
    const expected = new Map([...printed.values()].map((object) => {
      const metadata = object.metadata as Record<string, unknown>;
      const placed = { ...object, metadata: { ...metadata, namespace: metadata.namespace ?? releaseNamespace } };
      return [`${String(object.apiVersion).includes('/') ? String(object.apiVersion).split('/')[0] : 'core'}/${String(object.kind)}/${releaseNamespace}/${String(metadata.name)}`, placed];
    }));
    expect([...expected.keys()].sort()).toEqual([
      `apps/Deployment/${releaseNamespace}/frontend-podinfo`, `apps/Deployment/${releaseNamespace}/frontend-podinfo-redis`,
      `core/ConfigMap/${releaseNamespace}/frontend-podinfo-redis`, `core/Service/${releaseNamespace}/frontend-podinfo`, `core/Service/${releaseNamespace}/frontend-podinfo-redis`,
    ]);
    // The chart labels podinfo's own Service and Deployment managed-by Helm; Tidemark keeps that label as rendered.
    for (const key of [`core/Service/${releaseNamespace}/frontend-podinfo`, `apps/Deployment/${releaseNamespace}/frontend-podinfo`]) {
      expect((expected.get(key)?.metadata as { labels?: Record<string, string> }).labels?.['app.kubernetes.io/managed-by'], key).toBe('Helm');
    }
    await expectAppliedExactly(expected, releaseNamespace);
  });

  it('stops only the unit that fails to render, and names it; the other unit and the live objects stay', async () => {
    await harness.repo.write('charts/podinfo/templates/broken.yaml', '{{ .Values.nothing.here }}\n');
    const broken = await harness.pushAndReconcile('a template that fails');
    expect(broken.poll.errors.map((error) => [error.code, error.path])).toEqual([['RenderFailed', 'charts/podinfo/']]);
    expect(broken.poll.errors[0]?.message).toContain('charts/podinfo');
    expect(broken.poll.changes.filter((change) => change.change === 'removed')).toEqual([]);
    expect(await harness.source.readObject(broken.poll.revision, 'apps/Deployment/_/frontend', 'shared')).toBeDefined();
    await expect(harness.source.readObject(broken.poll.revision, `apps/Deployment/${releaseNamespace}/frontend-podinfo`, 'shared')).rejects.toThrow('charts/podinfo');
    expect(await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: releaseNamespace, name: 'frontend-podinfo' })).toBeDefined();
    expect(await getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: boutiqueNamespace, name: 'frontend' })).toBeDefined();
  });
});
