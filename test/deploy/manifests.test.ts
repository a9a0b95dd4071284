// deploy/ against the rig's real kube-apiserver: the Kustomize base and the Helm chart render
// with the real tools, every object passes a server-side dry-run, every pod template passes
// restricted Pod Security admission, and the RBAC grants exactly the documented list.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { kubectl } from '@tidemark/testing';
import { applyForReal, canServiceAccount, createIfMissing, createPodsDryRun, describeQuestion, dryRunOnServer, podsOf, type AccessQuestion } from './api-server';
import { dashboardRefused, reconcilerAllowed, reconcilerRefused } from './access';
import { crdKustomization, renderBaseIn, renderHelm, renderKustomize, type Manifest } from './render';

const suffix = randomUUID().slice(0, 8);
const kubeconfigPath = inject('kubeconfigPath');
const rbacKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** checkAccess returns the questions whose answer was not the expected one (empty when all match). */
async function checkAccess(serviceAccount: { namespace: string; name: string }, questions: AccessQuestion[], expected: boolean): Promise<string[]> {
  const answers = await canServiceAccount(kubeconfigPath, serviceAccount, questions);
  return questions.filter((_, index) => answers[index] !== expected).map(describeQuestion);
}

/** installPrerequisites creates the release namespace (with its Pod Security labels) and the CRDs for real. */
async function installPrerequisites(objects: Manifest[]): Promise<void> {
  await applyForReal(kubeconfigPath, objects.filter((object) => object.kind === 'Namespace'));
  const crds = await renderKustomize(kubeconfigPath, crdKustomization);
  await createIfMissing(kubeconfigPath, crds);
  await kubectl(kubeconfigPath, ['wait', '--for=condition=Established', '--timeout=60s', ...crds.map((crd) => `crd/${crd.metadata.name}`)]);
}

describe('deploy/crds kustomization', () => {
  it('renders exactly the generated CRDs, and the API server accepts them', async () => {
    const crds = await renderKustomize(kubeconfigPath, crdKustomization);
    expect(crds.map((crd) => crd.metadata.name).sort()).toEqual(['clusters.tidemark.dev', 'configwatchers.k8spatterns.com', 'healthrules.tidemark.dev', 'rollouts.tidemark.dev', 'sources.tidemark.dev', 'webapps.tidemark.dev']);
    // A server-side apply dry-run as the manager of the shared plane's WebApp CRD (test/setup/global-rig.ts),
    // so its webhook URL gives way to the Service these files name; it works whether or not a suite installed them first.
    await kubectl(kubeconfigPath, ['apply', '--server-side', '--force-conflicts', '--field-manager=tidemark-rig', '--dry-run=server', '-f', '-'], crds.map((crd) => JSON.stringify(crd)).join('\n---\n'));
  });
});

describe('Kustomize base on the API server', () => {
  const namespace = `tm-kz-${suffix}`;
  let objects: Manifest[] = [];

  beforeAll(async () => {
    objects = await renderBaseIn(kubeconfigPath, namespace);
    await installPrerequisites(objects);
  });

  it('renders every part: reconciler, dashboard, Redis, config, RBAC, NetworkPolicies, PDBs', () => {
    const kinds = objects.map((object) => `${object.kind}/${object.metadata.name}`);
    expect(kinds).toEqual(expect.arrayContaining([
      `Namespace/${namespace}`, 'Deployment/tidemark-reconciler', 'Deployment/tidemark-dashboard', 'StatefulSet/tidemark-redis',
      'Service/tidemark-dashboard', 'Service/tidemark-redis', 'Service/tidemark-reconciler', 'ClusterRole/tidemark-reconciler', 'ClusterRoleBinding/tidemark-reconciler',
      'ServiceAccount/tidemark-reconciler', 'ServiceAccount/tidemark-dashboard', 'PodDisruptionBudget/tidemark-reconciler',
      'PodDisruptionBudget/tidemark-dashboard', 'NetworkPolicy/tidemark-redis', 'NetworkPolicy/tidemark-reconciler', 'NetworkPolicy/tidemark-dashboard',
    ]));
    expect(kinds.some((kind) => kind.startsWith('ConfigMap/tidemark-reconciler-config-'))).toBe(true);
  });

  it('passes a server-side dry-run, object by object', async () => {
    const output = await dryRunOnServer(kubeconfigPath, objects.filter((object) => object.kind !== 'Namespace'));
    expect(output.trim().split('\n')).toHaveLength(objects.length - 1);
  });

  it('runs every pod under the restricted Pod Security Standard that the namespace enforces', async () => {
    const pods = podsOf(objects);
    expect(pods.map((pod) => pod.metadata.name).sort()).toEqual(['tidemark-dashboard-probe', 'tidemark-reconciler-probe', 'tidemark-redis-probe']);
    await createPodsDryRun(kubeconfigPath, pods);
  });

  it('would refuse a pod that allows privilege escalation (the namespace really enforces)', async () => {
    const [pod] = podsOf(objects.filter((object) => object.metadata.name === 'tidemark-reconciler'));
    const spec = structuredClone(pod!.spec) as { containers: { securityContext: Record<string, unknown> }[] };
    spec.containers[0]!.securityContext.allowPrivilegeEscalation = true;
    await expect(createPodsDryRun(kubeconfigPath, [{ ...pod!, spec }])).rejects.toThrow(/violates PodSecurity "restricted:latest".*allowPrivilegeEscalation/s);
  });

  describe('RBAC, installed for real and asked with SubjectAccessReviews', () => {
    beforeAll(async () => {
      await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
    });

    it('grants the reconciler everything on the documented list', async () => {
      expect(await checkAccess({ namespace, name: 'tidemark-reconciler' }, reconcilerAllowed(`team-${suffix}`), true)).toEqual([]);
    });

    it('refuses the reconciler everything else that was checked', async () => {
      expect(await checkAccess({ namespace, name: 'tidemark-reconciler' }, reconcilerRefused(`team-${suffix}`), false)).toEqual([]);
    });

    it('gives the dashboard no Kubernetes access', async () => {
      expect(await checkAccess({ namespace, name: 'tidemark-dashboard' }, dashboardRefused(namespace), false)).toEqual([]);
    });
  });
});

describe('Helm chart on the API server', () => {
  const namespace = `tm-helm-${suffix}`;
  const release = `tmh-${suffix}`;
  const reconciler = `${release}-tidemark-reconciler`;
  let objects: Manifest[] = [];
  let kubeVersion = '';

  beforeAll(async () => {
    // The rig's gitVersion is a placeholder; major and minor are real.
    const version = JSON.parse(await kubectl(kubeconfigPath, ['get', '--raw', '/version'])) as { major: string; minor: string };
    kubeVersion = `v${version.major}.${version.minor.replace(/\D+$/, '')}.0`;
    objects = await renderHelm({
      name: release,
      namespace,
      kubeVersion,
      // Plain manifests of kind Job in Git: the documented way to grant their kind.
      set: ['namespace.create=true', 'rbac.extraResources[0].apiGroups[0]=batch', 'rbac.extraResources[0].resources[0]=jobs'],
    });
    await installPrerequisites(objects);
  }, 600_000);

  it('renders the same parts as the Kustomize base, named after the release', () => {
    const kinds = objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();
    expect(kinds).toEqual([
      `ClusterRole/${reconciler}`, `ClusterRoleBinding/${reconciler}`, `ConfigMap/${reconciler}-config`,
      `Deployment/${release}-tidemark-dashboard`, `Deployment/${reconciler}`, `Namespace/${namespace}`,
      `NetworkPolicy/${release}-tidemark-dashboard`, `NetworkPolicy/${reconciler}`, `NetworkPolicy/${release}-tidemark-redis`,
      `PodDisruptionBudget/${release}-tidemark-dashboard`, `PodDisruptionBudget/${reconciler}`,
      `Role/${reconciler}-conversion-webhook`, `RoleBinding/${reconciler}-conversion-webhook`, `Secret/${release}-tidemark-redis-auth`,
      `Service/${release}-tidemark-dashboard`, `Service/${reconciler}`, `Service/${release}-tidemark-redis`,
      `ServiceAccount/${release}-tidemark-dashboard`, `ServiceAccount/${reconciler}`, `ServiceAccount/${release}-tidemark-redis`,
      `StatefulSet/${release}-tidemark-redis`,
    ].sort());
  });

  it('passes a server-side dry-run, object by object', async () => {
    const output = await dryRunOnServer(kubeconfigPath, objects.filter((object) => object.kind !== 'Namespace'));
    expect(output.trim().split('\n')).toHaveLength(objects.length - 1);
  });

  it('runs every pod under the restricted Pod Security Standard', async () => {
    const pods = podsOf(objects);
    expect(pods).toHaveLength(3);
    await createPodsDryRun(kubeconfigPath, pods);
  });

  it.each([
    ['a URL', ['redis.externalUrl=redis://redis.example.internal:6380']],
    ['a Sentinel group', ['redis.sentinel.name=mymaster', 'redis.sentinel.nodes[0]=sentinel-0.sentinel:26379', 'redis.auth.existingSecret=redis-login', 'redis.auth.sentinelRequiresPassword=true']],
    ['a Redis Cluster', ['redis.cluster.nodes[0]=redis-0.redis:7000', 'redis.auth.existingSecret=redis-login']],
  ])('renders and dry-runs with the dashboard and Redis turned off (an external Redis: %s)', async (_, redis) => {
    const minimal = await renderHelm({ name: release, namespace, kubeVersion, set: ['dashboard.enabled=false', 'redis.enabled=false', ...redis] });
    expect(minimal.filter((object) => object.kind === 'Deployment').map((object) => object.metadata.name)).toEqual([reconciler]);
    expect(minimal.some((object) => object.kind === 'StatefulSet')).toBe(false);
    await dryRunOnServer(kubeconfigPath, minimal);
  });

  describe('RBAC, installed for real and asked with SubjectAccessReviews', () => {
    beforeAll(async () => {
      await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
    });

    it('grants the reconciler the documented list plus the extra kinds from values', async () => {
      const extra: AccessQuestion[] = ['get', 'create', 'patch', 'delete'].map((verb) => ({ verb, group: 'batch', resource: 'jobs', namespace: `team-${suffix}` }));
      expect(await checkAccess({ namespace, name: reconciler }, [...reconcilerAllowed(`team-${suffix}`), ...extra], true)).toEqual([]);
    });

    it('refuses the reconciler everything else that was checked', async () => {
      const refused = reconcilerRefused(`team-${suffix}`).filter((question) => question.resource !== 'jobs');
      expect(await checkAccess({ namespace, name: reconciler }, refused, false)).toEqual([]);
    });

    it('gives the dashboard no Kubernetes access', async () => {
      expect(await checkAccess({ namespace, name: `${release}-tidemark-dashboard` }, dashboardRefused(namespace), false)).toEqual([]);
    });
  });
});
