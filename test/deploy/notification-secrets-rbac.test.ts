// The Secrets of notification providers (notifications.providers[].address.secretRef and
// .hmacKey.secretRef): the Helm chart grants the reconciler `get` on exactly the Secrets its config
// names, and the Kustomize component on exactly its one Secret. Installed for real on the rig and
// asked with SubjectAccessReviews.
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
const home = `tm-nt-${suffix}`;
const other = `tm-nt2-${suffix}`;
const overlayNamespace = `tm-ntk-${suffix}`;
const release = `tmn-${suffix}`;
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

/** chartValues is a values file whose notification providers read their URLs and keys from Secrets, and one from the environment. */
function chartValues(secretName = 'hooks'): string {
  return [
    'config:',
    '  clusters:',
    '    - { name: in-cluster, inCluster: true }',
    '    - { name: remote, kubeconfig: /etc/tidemark/clusters/remote }',
    '  notifications:',
    '    providers:',
    `      - { name: ops, type: webhook, address: { secretRef: { namespace: ${home}, name: ${secretName}, key: url } }, hmacKey: { secretRef: { cluster: in-cluster, namespace: ${home}, name: hook-keys, key: ops } } }`,
    `      - { name: chat, type: slack, address: { secretRef: { namespace: ${other}, name: slack, key: url } } }`,
    `      - { name: far, type: teams, address: { secretRef: { cluster: remote, namespace: ${home}, name: teams-remote, key: url } } }`,
    '      - { name: plain, type: webhook, address: { env: PLAIN_URL } }',
    '    alerts: []',
    '',
  ].join('\n');
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tidemark-notify-rbac-'));
  for (const namespace of [home, other, overlayNamespace]) await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
}, 600_000);
afterAll(async () => {
  for (const namespace of [home, other, overlayNamespace]) await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await rm(work, { recursive: true, force: true });
});

describe('the Helm chart and notification providers\' Secrets', () => {
  let objects: Manifest[] = [];

  beforeAll(async () => {
    await writeFile(join(work, 'values.yaml'), chartValues());
    objects = await renderHelm({ name: release, namespace: home, values: [join(work, 'values.yaml')] });
    await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
  }, 600_000);

  it('renders a namespaced Role per namespace, naming the Secrets of the cluster it runs in', () => {
    const roles = objects.filter((object) => object.kind === 'Role' && object.metadata.name.endsWith('-notifications'));
    expect(roles.map((role) => [role.metadata.namespace, role.rules]).sort()).toEqual([
      [home, [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['hook-keys', 'hooks'], verbs: ['get'] }]],
      [other, [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['slack'], verbs: ['get'] }]],
    ].sort());
  });

  it('lets the reconciler get exactly those Secrets', async () => {
    expect(await answersNotMatching(reconciler, [get(home, 'hooks'), get(home, 'hook-keys'), get(other, 'slack')], true)).toEqual([]);
  });

  it('and nothing else of Secrets: not other names, not other namespaces, not another cluster\'s, no list, watch or write', async () => {
    const refused: AccessQuestion[] = [
      get(home, 'slack'), get(other, 'hooks'), get(home, 'teams-remote'), get(home, 'some-other-secret'), get('kube-system', 'hooks'),
      ...listing(home), ...listing(other), ...secretVerbs(home, 'hooks'), ...secretVerbs(other, 'slack'),
    ];
    expect(await answersNotMatching(reconciler, refused, false)).toEqual([]);
  });

  it('renders no such Role when no provider names a Secret', async () => {
    const plain = await renderHelm({ name: release, namespace: home });
    expect(plain.filter((object) => object.metadata.name.endsWith('-notifications'))).toEqual([]);
  }, 600_000);

  it('refuses a wildcard Secret name, naming the field', async () => {
    await writeFile(join(work, 'wildcard.yaml'), chartValues('"*"'));
    await expect(renderHelm({ name: release, namespace: home, values: [join(work, 'wildcard.yaml')] })).rejects.toThrow(/config\.notifications\.providers\[0\]\.address\.secretRef: wildcards are not allowed/);
  }, 600_000);
});

describe('the Kustomize component notification-secrets', () => {
  it('with the base, lets the reconciler get its one Secret and nothing else of Secrets', async () => {
    const overlay = await mkdtemp(join(tmpdir(), 'tidemark-overlay-'));
    try {
      const component = join(repoRoot, 'deploy/kustomize/components/notification-secrets');
      await writeFile(join(overlay, 'kustomization.yaml'), [
        'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', `namespace: ${overlayNamespace}`, `namePrefix: n${suffix}-`,
        'resources:', `  - ${relative(overlay, kustomizeBase)}`, 'components:', `  - ${relative(overlay, component)}`, '',
      ].join('\n'));
      const objects = await renderKustomize(kubeconfigPath, overlay);
      await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
      const account = { namespace: overlayNamespace, name: `n${suffix}-tidemark-reconciler` };
      expect(await answersNotMatching(account, [get(overlayNamespace, 'tidemark-notifications')], true)).toEqual([]);
      const refused = [get(overlayNamespace, 'another-secret'), get(home, 'tidemark-notifications'), ...listing(overlayNamespace), ...secretVerbs(overlayNamespace, 'tidemark-notifications')];
      expect(await answersNotMatching(account, refused, false)).toEqual([]);
    } finally {
      await rm(overlay, { recursive: true, force: true });
    }
  }, 600_000);

  it('is not in the base: the base alone names no notification Secret', async () => {
    const objects = await renderKustomize(kubeconfigPath, kustomizeBase);
    expect(objects.filter((object) => JSON.stringify(object).includes('tidemark-notifications'))).toEqual([]);
  });
});
