// Static policies on what deploy/ renders (Kustomize base and Helm chart): least-privilege RBAC,
// restricted pods, probes and resources, disruption budgets, the shutdown budget, Redis settings,
// and a reconciler config that the reconciler's own loader accepts.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig as loadDashboardConfig } from '../../apps/dashboard/src/config';
import { loadConfig } from '../../apps/reconciler/src/config';
import { component, insecureContainers, podSpecOf, unprobedOrUnbounded, unprotectedDeployments, wildcardRules, type PodSpec } from './policy';
import { kustomizeBase, renderHelm, renderKustomize, repoRoot, type Manifest } from './render';

const kubeconfigPath = inject('kubeconfigPath');

/**
 * The reconciler's worst-case shutdown with libs/queue's defaults: drainTimeoutMs 20 s, then
 * abortGraceMs 5 s, BullMQ worker close 5 s, Redis quit 2 s.
 */
const reconcilerShutdownSeconds = 20 + 5 + 5 + 2;

const renders: [string, () => Promise<Manifest[]>][] = [
  ['Kustomize base', () => renderKustomize(kubeconfigPath)],
  ['Helm chart (defaults)', () => renderHelm({ set: ['namespace.create=true'] })],
  ['Helm chart (extra kinds, remote clusters)', () => renderHelm({
    set: ['namespace.create=true', 'rbac.extraResources[0].apiGroups[0]=batch', 'rbac.extraResources[0].resources[0]=jobs', 'rbac.extraCrdNames[0]=certificates.cert-manager.io', 'reconciler.clusterKubeconfigsSecret=tidemark-clusters'],
  })],
];

function env(container: { env?: { name: string; value?: string }[] }, variable: string): string | undefined {
  return container.env?.find((entry) => entry.name === variable)?.value;
}

describe.each(renders)('%s', (_, render) => {
  let objects: Manifest[] = [];
  beforeAll(async () => {
    objects = await render();
  }, 600_000);

  it('has no RBAC rule with a wildcard', () => {
    expect(wildcardRules(objects)).toEqual([]);
  });

  it('gives every container the restricted securityContext and an emptyDir /tmp', () => {
    expect(objects.filter((object) => podSpecOf(object)).length).toBe(3);
    expect(insecureContainers(objects)).toEqual([]);
  });

  it('gives every Deployment and StatefulSet probes, requests and a memory limit', () => {
    expect(unprobedOrUnbounded(objects)).toEqual([]);
  });

  it('covers every replicated Deployment with a PodDisruptionBudget', () => {
    expect(unprotectedDeployments(objects)).toEqual([]);
  });

  it('labels the namespace to enforce the restricted Pod Security Standard', () => {
    const [namespace] = objects.filter((object) => object.kind === 'Namespace');
    expect(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  it('runs at least two reconcilers, with a grace period longer than their worst-case shutdown', () => {
    const deployment = component(objects, 'Deployment', 'reconciler');
    expect((deployment.spec as { replicas: number }).replicas).toBeGreaterThanOrEqual(2);
    const pod = podSpecOf(deployment)!;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(reconcilerShutdownSeconds);
    expect(pod.automountServiceAccountToken).toBe(true);
  });

  it('ships a reconciler config that the reconciler loads, with the cache on an emptyDir and health on port 9464', async () => {
    const deployment = component(objects, 'Deployment', 'reconciler');
    const pod = podSpecOf(deployment)!;
    const container = pod.containers[0]!;
    const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === pod.volumes?.find((volume) => volume.name === 'config')?.configMap?.name);
    const text = (configMap?.data as Record<string, string> | undefined)?.['tidemark.yaml'];
    expect(text, 'the ConfigMap mounted as config holds tidemark.yaml').toBeTypeOf('string');
    const configPath = env(container, 'TIDEMARK_CONFIG')!;
    const mount = container.volumeMounts?.find((entry) => entry.name === 'config');
    expect(configPath).toBe(`${mount?.mountPath}/tidemark.yaml`);

    const folder = await mkdtemp(join(tmpdir(), 'tidemark-config-'));
    try {
      await writeFile(join(folder, 'tidemark.yaml'), text!);
      const config = loadConfig({ TIDEMARK_REDIS_URL: env(container, 'TIDEMARK_REDIS_URL'), TIDEMARK_ROLE: env(container, 'TIDEMARK_ROLE') }, join(folder, 'tidemark.yaml'));
      expect(config.clusters).toEqual([expect.objectContaining({ name: 'in-cluster', inCluster: true })]);
      expect(config.http.port).toBe(9464);
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'http', containerPort: 9464 }));
      expect((container.readinessProbe as { httpGet: unknown }).httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect((container.livenessProbe as { httpGet: unknown }).httpGet).toEqual({ path: '/healthz', port: 'http' });
      const cacheMount = container.volumeMounts?.find((entry) => entry.mountPath === config.cacheDir);
      expect(pod.volumes?.find((volume) => volume.name === cacheMount?.name)?.emptyDir, 'the Git cache is on an emptyDir').toBeDefined();
      // Redis needs its password (Kubernetes puts it in for $(…); test/deploy/redis-auth runs it).
      expect(config.redisUrl).toMatch(/^redis:\/\/default:\$\(TIDEMARK_REDIS_PASSWORD\)@[a-z0-9-]+-redis:6379$/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('runs Redis with noeviction and AOF on a persistent volume, maxmemory under the memory limit', () => {
    const redis = component(objects, 'StatefulSet', 'redis');
    const container = podSpecOf(redis)!.containers[0]!;
    const args = (container.args ?? []).join(' ');
    expect(args).toContain('--maxmemory-policy noeviction');
    expect(args).toContain('--appendonly yes');
    const maxmemory = /--maxmemory (\d+)mb/.exec(args)?.[1];
    const limit = /^(\d+)Mi$/.exec(container.resources?.limits?.memory ?? '')?.[1];
    expect(Number(maxmemory)).toBeLessThan(Number(limit));
    const claims = (redis.spec as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates.map((claim) => claim.metadata.name);
    const dataMount = container.volumeMounts?.find((mount) => mount.mountPath === '/data');
    expect(claims).toContain(dataMount?.name);
  });

  it('gives the dashboard no Kubernetes access: no token mounted, no binding names it', () => {
    const deployment = component(objects, 'Deployment', 'dashboard');
    const pod = podSpecOf(deployment) as PodSpec;
    expect(pod.automountServiceAccountToken).toBe(false);
    const serviceAccount = objects.find((object) => object.kind === 'ServiceAccount' && object.metadata.name === pod.serviceAccountName);
    expect(serviceAccount?.automountServiceAccountToken).toBe(false);
    const bound = objects.filter((object) => object.kind.endsWith('Binding')).flatMap((object) => (object.subjects as { name: string }[]));
    expect(bound.map((subject) => subject.name)).not.toContain(pod.serviceAccountName);
  });

  it('ships a dashboard environment that the dashboard loads: all interfaces, its port, the same Redis and clusters', async () => {
    const container = podSpecOf(component(objects, 'Deployment', 'dashboard'))!.containers[0]!;
    const reconciler = podSpecOf(component(objects, 'Deployment', 'reconciler'))!.containers[0]!;
    const folder = await mkdtemp(join(tmpdir(), 'tidemark-dashboard-'));
    try {
      const literal = Object.fromEntries((container.env ?? []).filter((entry) => entry.value !== undefined).map((entry) => [entry.name, entry.value]));
      const tokensFile = join(folder, 'tokens.json');
      await writeFile(tokensFile, JSON.stringify([{ name: 'admin', role: 'operator', token: 'a-token-of-twenty-characters' }]));
      expect(literal.TIDEMARK_DASHBOARD_TOKENS_FILE).toBe('/etc/tidemark/dashboard/tokens.json');
      // The Secret's values stand in for what the kubelet would inject.
      const config = loadDashboardConfig({ ...literal, TIDEMARK_DASHBOARD_TOKENS_FILE: tokensFile, TIDEMARK_DASHBOARD_SESSION_SECRET: 's'.repeat(32) });
      expect(config.host).toBe('0.0.0.0');
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'http', containerPort: config.port }));
      expect(config.redisUrl).toBe(env(reconciler, 'TIDEMARK_REDIS_URL'));
      expect(config.clusters).toEqual(['in-cluster']);
      expect((container.env ?? []).find((entry) => entry.name === 'TIDEMARK_DASHBOARD_SESSION_SECRET')).toHaveProperty('valueFrom.secretKeyRef.key', 'session-secret');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('isolates each component with a NetworkPolicy; Redis takes connections from the reconciler and dashboard only', () => {
    const policies = objects.filter((object) => object.kind === 'NetworkPolicy').map((object) => object.spec as {
      podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress?: { from?: { podSelector?: { matchLabels: Record<string, string> } }[] }[]; egress?: unknown[];
    });
    const of = (name: string) => policies.find((policy) => policy.podSelector.matchLabels['app.kubernetes.io/component'] === name);
    for (const name of ['reconciler', 'dashboard', 'redis']) expect(of(name)?.policyTypes.sort(), name).toEqual(['Egress', 'Ingress']);
    const redis = of('redis')!;
    const sources = (redis.ingress ?? []).flatMap((rule) => rule.from ?? []).map((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/component']);
    expect(sources.sort()).toEqual(['dashboard', 'reconciler']);
    expect(redis.egress).toEqual([]);
  });
});

describe('the conversion webhook port', () => {
  type Ingress = { ports?: { port: number }[]; from?: { ipBlock?: { cidr: string } }[] }[];
  const reconcilerIngress = (objects: Manifest[]) => (component(objects, 'NetworkPolicy', 'reconciler').spec as { ingress: Ingress }).ingress;
  const ruleFor = (ingress: Ingress, port: number) => ingress.filter((rule) => rule.ports?.some((entry) => entry.port === port));

  it('has an ingress rule of its own, which the chart limits to the API servers\' CIDRs', async () => {
    // Issue 34, item 14: the webhook is for the API servers, not every pod in the cluster.
    const objects = await renderHelm({ set: ['networkPolicy.conversionWebhookFrom[0]=10.0.0.0/24', 'networkPolicy.conversionWebhookFrom[1]=192.168.10.5/32'] });
    const [rule, ...others] = ruleFor(reconcilerIngress(objects), 9443);
    expect(others).toEqual([]);
    expect(rule?.ports?.map((entry) => entry.port)).toEqual([9443]);
    expect(rule?.from).toEqual([{ ipBlock: { cidr: '10.0.0.0/24' } }, { ipBlock: { cidr: '192.168.10.5/32' } }]);
    // The HTTP port's rule (health, metrics, Git webhooks) does not open the conversion port.
    for (const [name, render] of renders) expect(ruleFor(reconcilerIngress(await render()), 9443).map((entry) => entry.ports?.length), name).toEqual([1]);
  }, 600_000);
});

describe('deploy/seccomp/tidemark-render.json', () => {
  it('lets the render sandbox make user, network and mount namespaces, and refuses what reads another process', async () => {
    // Issue 34, item 17: the optional profile under which tidemark_render_sandbox_isolated is 1.
    const profile = JSON.parse(await readFile(join(repoRoot, 'deploy/seccomp/tidemark-render.json'), 'utf8')) as { defaultAction: string; syscalls: { names: string[]; action: string }[] };
    const refused = new Set(profile.syscalls.filter((rule) => rule.action !== 'SCMP_ACT_ALLOW').flatMap((rule) => rule.names));
    expect(profile.defaultAction).toBe('SCMP_ACT_ALLOW');
    for (const needed of ['unshare', 'clone', 'clone3', 'execve', 'mount']) expect(refused.has(needed), needed).toBe(false);
    for (const dangerous of ['ptrace', 'process_vm_readv', 'keyctl', 'bpf', 'umount2', 'setns', 'kexec_load', 'init_module']) expect(refused.has(dangerous), dangerous).toBe(true);
  });
});

describe('Kustomize base and Helm chart', () => {
  it('grant the reconciler the same rules (the chart with default values)', async () => {
    const rulesOf = (objects: Manifest[]) => objects.find((object) => object.kind === 'ClusterRole')?.rules;
    const [kustomize, helm] = await Promise.all([renderKustomize(kubeconfigPath), renderHelm()]);
    expect(rulesOf(helm)).toEqual(rulesOf(kustomize));
  }, 600_000);
});

describe('deploy/README.md', () => {
  it('its Kustomize patch for kinds of plain manifests adds them to the reconciler\'s ClusterRole', async () => {
    const readme = await readFile(join(repoRoot, 'deploy/README.md'), 'utf8');
    const patch = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!).find((block) => block.includes('kind: ClusterRole, name: tidemark-reconciler'));
    expect(patch, 'README has the ClusterRole patch').toBeDefined();
    const overlay = await mkdtemp(join(tmpdir(), 'tidemark-readme-'));
    try {
      await writeFile(join(overlay, 'kustomization.yaml'), `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${relative(overlay, kustomizeBase)}\n${patch}`);
      const objects = await renderKustomize(kubeconfigPath, overlay);
      const role = objects.find((object) => object.kind === 'ClusterRole')!;
      expect(role.rules).toContainEqual({ apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] });
      expect(wildcardRules(objects)).toEqual([]);
    } finally {
      await rm(overlay, { recursive: true, force: true });
    }
  });
});

describe('the Helm chart refuses what would break the policies', () => {
  it.each([
    ['rbac.extraResources[0].apiGroups[0]=*', 'rbac.extraResources[0].resources[0]=jobs'],
    ['rbac.extraResources[0].apiGroups[0]=batch', 'rbac.extraResources[0].resources[0]=*'],
    ['rbac.extraResources[0].apiGroups[0]=batch', 'rbac.extraResources[0].resources[0]=jobs', 'rbac.extraResources[0].verbs[0]=*'],
  ])('a wildcard in rbac.extraResources (%s %s)', async (...set) => {
    await expect(renderHelm({ set })).rejects.toThrow(/wildcards are not allowed/);
  }, 600_000);

  it.each(['impersonate', 'escalate', 'bind'])('the verb %s in rbac.extraResources (impersonation comes only through tenants)', async (verb) => {
    const set = ['rbac.extraResources[0].apiGroups[0]=', 'rbac.extraResources[0].resources[0]=serviceaccounts', `rbac.extraResources[0].verbs[0]=${verb}`];
    await expect(renderHelm({ set })).rejects.toThrow(new RegExp(`verb "${verb}" in rbac.extraResources\\[0\\] is refused`));
  }, 600_000);

  it('an external Redis without a URL', async () => {
    await expect(renderHelm({ set: ['redis.enabled=false'] })).rejects.toThrow(/redis.externalUrl is required/);
  }, 600_000);
});

describe('the policy checks catch what they look for', () => {
  const pod = (patch: Partial<PodSpec['containers'][number]>): Manifest => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'broken' },
    spec: { replicas: 2, template: { metadata: { labels: { app: 'broken' } }, spec: { volumes: [{ name: 'tmp', emptyDir: {} }], containers: [{ name: 'main', volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }], ...patch }] } } },
  });

  it('finds a wildcard verb, resource or group', () => {
    const role: Manifest = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'broad' }, rules: [{ apiGroups: ['*'], resources: ['pods'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods/*'], verbs: ['*'] }] };
    expect(wildcardRules([role])).toEqual(['ClusterRole/broad: rules[0].apiGroups has a wildcard', 'ClusterRole/broad: rules[1].resources has a wildcard', 'ClusterRole/broad: rules[1].verbs has a wildcard']);
  });

  it('finds each missing part of the restricted securityContext', () => {
    expect(insecureContainers([pod({ securityContext: { capabilities: { add: ['NET_ADMIN'] } } })])).toEqual([
      'Deployment/broken container main: runAsNonRoot is not true',
      'Deployment/broken container main: readOnlyRootFilesystem is not true',
      'Deployment/broken container main: allowPrivilegeEscalation is not false',
      'Deployment/broken container main: does not drop ALL capabilities',
      'Deployment/broken container main: adds capabilities',
      'Deployment/broken container main: seccompProfile is not RuntimeDefault',
    ]);
  });

  it('finds missing probes, requests and limits, and a Deployment without a budget', () => {
    expect(unprobedOrUnbounded([pod({})])).toHaveLength(4);
    expect(unprotectedDeployments([pod({})])).toEqual(['Deployment/broken: no PodDisruptionBudget selects its pods']);
  });

  it('reads a CronJob\'s pod template too', () => {
    const cron: Manifest = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'main' }] } } } } } };
    expect(insecureContainers([cron])).toContain('CronJob/nightly container main: /tmp is not an emptyDir (the root filesystem is read-only)');
  });
});
