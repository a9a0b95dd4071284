// The suite both named-Secret grants of the chart share (tidemark.secretGetRoles: chart repositories,
// notification providers): the Helm chart grants the reconciler `get` on exactly the Secrets its
// config names, and the Kustomize component on exactly its one Secret. Installed for real on the
// rig and asked with SubjectAccessReviews.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kubectl } from '@tidemark/testing';
import { applyForReal, canServiceAccount, describeQuestion, type AccessQuestion } from './api-server';
import { kustomizeBase, renderHelm, renderKustomize, repoRoot, type Manifest } from './render';

/** SecretGetRolesCase is one grant of named Secrets: the config that names them and what must follow. */
export interface SecretGetRolesCase {
  /** Who names the Secrets, plural and singular, for the titles: "chart repositories", "chart repository". */
  owners: string;
  owner: string;
  /** Two letters that keep this suite's namespaces and release apart from the other's. */
  tag: string;
  /** The end of the chart's Role and RoleBinding names: "<release>-tidemark-reconciler-<roleSuffix>". */
  roleSuffix: string;
  /**
   * The values lines under `config:` after `clusters` (in-cluster, with inCluster, and remote). The
   * first Secret in `home` is named `firstSecret` (the wildcard case passes "*"); one Secret names
   * the remote cluster, `remoteSecret`, and must not be granted.
   */
  configLines(names: { home: string; other: string; firstSecret: string }): string[];
  firstSecret: string;
  remoteSecret: string;
  /** The Secrets granted in `home` and in `other`, sorted as the Role lists them. */
  granted: { home: string[]; other: string[] };
  /** The chart's error for a wildcard in `firstSecret`, naming the field. */
  wildcardError: RegExp;
  /** The Kustomize component and the one Secret it grants. */
  component: { name: string; secret: string; namePrefix: string };
}

const get = (namespace: string, name: string): AccessQuestion => ({ verb: 'get', group: '', resource: 'secrets', namespace, name });
const secretVerbs = (namespace: string, name: string): AccessQuestion[] => ['update', 'patch', 'delete'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace, name }));
const listing = (namespace: string): AccessQuestion[] => ['list', 'watch'].map((verb) => ({ verb, group: '', resource: 'secrets', namespace }));
const rbacKinds = new Set(['ServiceAccount', 'Role', 'RoleBinding']);

/** describeSecretGetRoles declares the whole suite for one grant of named Secrets. */
export function describeSecretGetRoles(grant: SecretGetRolesCase): void {
  const suffix = randomUUID().slice(0, 8);
  const kubeconfigPath = inject('kubeconfigPath');
  const home = `tm-${grant.tag}-${suffix}`;
  const other = `tm-${grant.tag}2-${suffix}`;
  const overlayNamespace = `tm-${grant.tag}k-${suffix}`;
  const release = `tm${grant.tag}-${suffix}`;
  const reconciler = { namespace: home, name: `${release}-tidemark-reconciler` };
  const firstOther = grant.granted.other[0]!;
  let work = '';

  /** answersNotMatching returns the questions whose answer was not `expected` (empty when all match). */
  async function answersNotMatching(serviceAccount: { namespace: string; name: string }, questions: AccessQuestion[], expected: boolean): Promise<string[]> {
    const answers = await canServiceAccount(kubeconfigPath, serviceAccount, questions);
    return questions.filter((_, index) => answers[index] !== expected).map(describeQuestion);
  }

  const chartValues = (firstSecret = grant.firstSecret) => [
    'config:',
    '  clusters:',
    '    - { name: in-cluster, inCluster: true }',
    '    - { name: remote, kubeconfig: /etc/tidemark/clusters/remote }',
    ...grant.configLines({ home, other, firstSecret }),
    '',
  ].join('\n');

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), `tidemark-${grant.roleSuffix}-rbac-`));
    for (const namespace of [home, other, overlayNamespace]) await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  }, 600_000);
  afterAll(async () => {
    for (const namespace of [home, other, overlayNamespace]) await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  });

  describe(`the Helm chart and the Secrets of ${grant.owners}`, () => {
    let objects: Manifest[] = [];

    beforeAll(async () => {
      await writeFile(join(work, 'values.yaml'), chartValues());
      objects = await renderHelm({ name: release, namespace: home, values: [join(work, 'values.yaml')] });
      await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
    }, 600_000);

    it('renders a namespaced Role per namespace, naming the Secrets of the cluster it runs in', () => {
      const roles = objects.filter((object) => object.kind === 'Role' && object.metadata.name.endsWith(`-${grant.roleSuffix}`));
      expect(roles.map((role) => [role.metadata.namespace, role.rules]).sort()).toEqual([
        [home, [{ apiGroups: [''], resources: ['secrets'], resourceNames: grant.granted.home, verbs: ['get'] }]],
        [other, [{ apiGroups: [''], resources: ['secrets'], resourceNames: grant.granted.other, verbs: ['get'] }]],
      ].sort());
    });

    it('lets the reconciler get exactly those Secrets', async () => {
      const granted = [...grant.granted.home.map((name) => get(home, name)), ...grant.granted.other.map((name) => get(other, name))];
      expect(await answersNotMatching(reconciler, granted, true)).toEqual([]);
    });

    it('and nothing else of Secrets: not other names, not other namespaces, not another cluster\'s, no list, watch or write', async () => {
      const refused: AccessQuestion[] = [
        get(home, firstOther), get(other, grant.firstSecret), get(home, grant.remoteSecret), get(home, 'some-other-secret'), get('kube-system', grant.firstSecret),
        ...listing(home), ...listing(other), ...secretVerbs(home, grant.firstSecret), ...secretVerbs(other, firstOther),
      ];
      expect(await answersNotMatching(reconciler, refused, false)).toEqual([]);
    });

    it(`renders no such Role when no ${grant.owner} names a Secret`, async () => {
      const plain = await renderHelm({ name: release, namespace: home });
      expect(plain.filter((object) => object.metadata.name.endsWith(`-${grant.roleSuffix}`))).toEqual([]);
    }, 600_000);

    it('refuses a wildcard Secret name, naming the field', async () => {
      await writeFile(join(work, 'wildcard.yaml'), chartValues('"*"'));
      await expect(renderHelm({ name: release, namespace: home, values: [join(work, 'wildcard.yaml')] })).rejects.toThrow(grant.wildcardError);
    }, 600_000);
  });

  describe(`the Kustomize component ${grant.component.name}`, () => {
    const { secret, namePrefix } = grant.component;

    it('with the base, lets the reconciler get its one Secret and nothing else of Secrets', async () => {
      const overlay = await mkdtemp(join(tmpdir(), 'tidemark-overlay-'));
      try {
        const component = join(repoRoot, 'deploy/kustomize/components', grant.component.name);
        await writeFile(join(overlay, 'kustomization.yaml'), [
          'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', `namespace: ${overlayNamespace}`, `namePrefix: ${namePrefix}${suffix}-`,
          'resources:', `  - ${relative(overlay, kustomizeBase)}`, 'components:', `  - ${relative(overlay, component)}`, '',
        ].join('\n'));
        const objects = await renderKustomize(kubeconfigPath, overlay);
        await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
        const account = { namespace: overlayNamespace, name: `${namePrefix}${suffix}-tidemark-reconciler` };
        expect(await answersNotMatching(account, [get(overlayNamespace, secret)], true)).toEqual([]);
        const refused = [get(overlayNamespace, 'another-secret'), get(home, secret), ...listing(overlayNamespace), ...secretVerbs(overlayNamespace, secret)];
        expect(await answersNotMatching(account, refused, false)).toEqual([]);
      } finally {
        await rm(overlay, { recursive: true, force: true });
      }
    }, 600_000);

    it(`is not in the base: the base alone names no ${grant.owner} Secret`, async () => {
      const objects = await renderKustomize(kubeconfigPath, kustomizeBase);
      expect(objects.filter((object) => JSON.stringify(object).includes(secret))).toEqual([]);
    });
  });
}
