// The Secrets of chart repositories (render.chartRepositories[].secretRef): the Helm chart grants
// the reconciler `get` on exactly the Secrets its config names, and the Kustomize component on
// exactly its one Secret. Installed for real on the rig and asked with SubjectAccessReviews.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kubectl } from '@tidemark/testing';
import { applyForReal, canServiceAccount, describeQuestion, type AccessQuestion } from './api-server';
import { kustomizeBase, renderHelm, renderKustomize, repoRoot, type Manifest } from './render';

const suffix = randomUUID().slice(0, 8);
const kubeconfigPath = inject('kubeconfigPath');
const home = `tm-cr-${suffix}`;
const other = `tm-cr2-${suffix}`;
const overlayNamespace = `tm-crk-${suffix}`;
const release = `tmc-${suffix}`;
const reconciler = { namespace: home, name: `${release}-tidemark-reconciler` };
const rbacKinds = new Set(['ServiceAccount', 'Role', 'RoleBinding']);
let work = '';

const get = (namespace: string, name: string): AccessQuestion => ({ verb: 'get', group: '', resource: 'secrets', namespace, name });
const secretVerbs = (namespace: string, name: string): AccessQuestion[] => ['update', 'patch', 'delete'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace, name }));
const listing = (namespace: string): AccessQuestion[] => ['list', 'watch'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace }));

/** answersNotMatching returns the questions whose answer was not `expected` (empty when all match). */
async function answersNotMatching(serviceAccount: { namespace: string; name: string }, questions: AccessQuestion[], expected: boolean): Promise<string[]> {
  const answers = await canServiceAccount(kubeconfigPath, serviceAccount, questions);
  return questions.filter((_, index) => answers[index] !== expected).map(describeQuestion);
}

/** chartValues is a values file whose config names chart repositories, some with Secrets. */
function chartValues(secretName = 'charts-a'): string {
  return [
    'config:',
    '  clusters:',
    '    - { name: in-cluster, inCluster: true }',
    '    - { name: remote, kubeconfig: /etc/tidemark/clusters/remote }',
    '  render:',
    '    chartRepositories:',
    `      - { url: https://a.example.com/charts, secretRef: { namespace: ${home}, name: ${secretName} } }`,
    `      - { url: https://b.example.com/charts, secretRef: { namespace: ${other}, name: charts-b } }`,
    `      - { url: https://c.example.com/charts, secretRef: { cluster: in-cluster, namespace: ${home}, name: charts-c } }`,
    `      - { url: https://d.example.com/charts, secretRef: { cluster: remote, namespace: ${home}, name: charts-remote } }`,
    '      - { url: https://e.example.com/charts }',
    '',
  ].join('\n');
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tidemark-chart-rbac-'));
  for (const namespace of [home, other, overlayNamespace]) await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
}, 600_000);
afterAll(async () => {
  for (const namespace of [home, other, overlayNamespace]) await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await rm(work, { recursive: true, force: true });
});

describe('the Helm chart and chart repository Secrets', () => {
  let objects: Manifest[] = [];

  beforeAll(async () => {
    await writeFile(join(work, 'values.yaml'), chartValues());
    objects = await renderHelm({ name: release, namespace: home, values: [join(work, 'values.yaml')] });
    await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
  }, 600_000);

  it('renders a namespaced Role per namespace, naming the Secrets of the cluster it runs in', () => {
    const roles = objects.filter((object) => object.kind === 'Role' && object.metadata.name.endsWith('-chart-repositories'));
    expect(roles.map((role) => [role.metadata.namespace, role.rules]).sort()).toEqual([
      [home, [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['charts-a', 'charts-c'], verbs: ['get'] }]],
      [other, [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['charts-b'], verbs: ['get'] }]],
    ].sort());
  });

  it('lets the reconciler get exactly those Secrets', async () => {
    expect(await answersNotMatching(reconciler, [get(home, 'charts-a'), get(home, 'charts-c'), get(other, 'charts-b')], true)).toEqual([]);
  });

  it('and nothing else of Secrets: not other names, not other namespaces, not another cluster\'s, no list, watch or write', async () => {
    const refused: AccessQuestion[] = [
      get(home, 'charts-b'), get(other, 'charts-a'), get(home, 'charts-remote'), get(home, 'some-other-secret'), get('kube-system', 'charts-a'),
      ...listing(home), ...listing(other), ...secretVerbs(home, 'charts-a'), ...secretVerbs(other, 'charts-b'),
    ];
    expect(await answersNotMatching(reconciler, refused, false)).toEqual([]);
  });

  it('renders no such Role when no chart repository names a Secret', async () => {
    const plain = await renderHelm({ name: release, namespace: home });
    expect(plain.filter((object) => object.metadata.name.endsWith('-chart-repositories'))).toEqual([]);
  }, 600_000);

  it('refuses a wildcard Secret name', async () => {
    await writeFile(join(work, 'wildcard.yaml'), chartValues('"*"'));
    await expect(renderHelm({ name: release, namespace: home, values: [join(work, 'wildcard.yaml')] })).rejects.toThrow(/config\.render\.chartRepositories\[0\]\.secretRef: wildcards are not allowed/);
  }, 600_000);
});

describe('the Kustomize component chart-repository-secrets', () => {
  it('with the base, lets the reconciler get its one Secret and nothing else of Secrets', async () => {
    const overlay = await mkdtemp(join(tmpdir(), 'tidemark-overlay-'));
    try {
      const component = join(repoRoot, 'deploy/kustomize/components/chart-repository-secrets');
      await writeFile(join(overlay, 'kustomization.yaml'), [
        'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', `namespace: ${overlayNamespace}`, `namePrefix: p${suffix}-`,
        'resources:', `  - ${relative(overlay, kustomizeBase)}`, 'components:', `  - ${relative(overlay, component)}`, '',
      ].join('\n'));
      const objects = await renderKustomize(kubeconfigPath, overlay);
      await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
      const account = { namespace: overlayNamespace, name: `p${suffix}-tidemark-reconciler` };
      expect(await answersNotMatching(account, [get(overlayNamespace, 'tidemark-chart-repository')], true)).toEqual([]);
      const refused = [get(overlayNamespace, 'another-secret'), get(home, 'tidemark-chart-repository'), ...listing(overlayNamespace), ...secretVerbs(overlayNamespace, 'tidemark-chart-repository')];
      expect(await answersNotMatching(account, refused, false)).toEqual([]);
    } finally {
      await rm(overlay, { recursive: true, force: true });
    }
  }, 600_000);

  it('is not in the base: the base alone names no chart repository Secret', async () => {
    const objects = await renderKustomize(kubeconfigPath, kustomizeBase);
    expect(objects.filter((object) => JSON.stringify(object).includes('tidemark-chart-repository'))).toEqual([]);
  });
});
