// deploy/multi-tenant: two team sources with their own ServiceAccounts and allow-lists, rendered
// through the Helm chart. Installed for real, the RBAC lets the reconciler impersonate exactly the
// tenants' ServiceAccounts, and each of those write only its team's namespace. The bundled Redis
// requires a password that both apps get from one Secret.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kubectl } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { applyForReal, canServiceAccount, describeQuestion, type AccessQuestion } from './api-server';
import { component, podSpecOf } from './policy';
import { renderHelm, repoRoot, type Manifest } from './render';

const suffix = randomUUID().slice(0, 8);
const kubeconfigPath = inject('kubeconfigPath');
const release = `tmt-${suffix}`;
const home = `tmt-${suffix}`;
const teamA = `ta-${suffix}`;
const teamB = `tb-${suffix}`;
const reconciler = { namespace: home, name: `${release}-tidemark-reconciler` };
const rbacKinds = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
let work = '';
let objects: Manifest[] = [];

async function refusedOrAllowed(serviceAccount: { namespace: string; name: string }, questions: AccessQuestion[], expected: boolean): Promise<string[]> {
  const answers = await canServiceAccount(kubeconfigPath, serviceAccount, questions);
  return questions.filter((_, index) => answers[index] !== expected).map(describeQuestion);
}
const impersonate = (namespace: string, name: string): AccessQuestion => ({ verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace, name });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tidemark-multi-tenant-'));
  // The example with this run's own namespaces, as a user would adapt it.
  const text = (await readFile(join(repoRoot, 'deploy/multi-tenant/values.yaml'), 'utf8'))
    .replaceAll('team-a', teamA).replaceAll('team-b', teamB).replaceAll('namespace: tidemark,', `namespace: ${home},`);
  await writeFile(join(work, 'values.yaml'), text);
  objects = await renderHelm({ name: release, namespace: home, values: [join(work, 'values.yaml')] });
  for (const namespace of [home, teamA, teamB]) await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  await applyForReal(kubeconfigPath, objects.filter((object) => rbacKinds.has(object.kind)));
}, 600_000);
afterAll(async () => {
  for (const namespace of [home, teamA, teamB]) await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await kubectl(kubeconfigPath, ['delete', 'clusterrole,clusterrolebinding', `${release}-tidemark-reconciler`, '--ignore-not-found']).catch(() => undefined);
  await rm(work, { recursive: true, force: true });
});

describe('deploy/multi-tenant', () => {
  it('ships a config the reconciler loads: each team source with its ServiceAccount and allow-list, and the lockdown default', async () => {
    const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-config'))!;
    await writeFile(join(work, 'tidemark.yaml'), (configMap as unknown as { data: Record<string, string> }).data['tidemark.yaml']!);
    const config = loadConfig({ TIDEMARK_REDIS_URL: 'redis://127.0.0.1:6379' }, join(work, 'tidemark.yaml'));
    expect(config.defaultServiceAccount).toEqual({ namespace: home, name: 'tidemark-nobody' });
    expect(config.sources.map((source) => [source.name, source.serviceAccount, source.allow?.namespaces])).toEqual([
      [teamA, { namespace: teamA, name: `tidemark-${teamA}` }, [teamA]],
      [teamB, { namespace: teamB, name: `tidemark-${teamB}` }, [teamB]],
    ]);
    expect(config.sources.every((source) => source.allow?.createNamespaces === false && source.allow.clusterKinds.length === 0)).toBe(true);
  });

  it('lets the reconciler impersonate exactly the tenants\' ServiceAccounts', async () => {
    const allowed = [impersonate(teamA, `tidemark-${teamA}`), impersonate(teamB, `tidemark-${teamB}`), impersonate(home, 'tidemark-nobody')];
    expect(await refusedOrAllowed(reconciler, allowed, true)).toEqual([]);
    const refused: AccessQuestion[] = [
      impersonate(teamA, 'default'), impersonate(teamA, `tidemark-${teamB}`), impersonate('kube-system', 'default'), impersonate(home, reconciler.name),
      { verb: 'impersonate', group: '', resource: 'users', name: 'admin' },
      { verb: 'impersonate', group: '', resource: 'groups', name: 'system:masters' },
      { verb: 'escalate', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'cluster-admin' },
    ];
    expect(await refusedOrAllowed(reconciler, refused, false)).toEqual([]);
  });

  it('lets each team ServiceAccount write its own namespace only, and the lockdown one nothing', async () => {
    const write = (namespace: string): AccessQuestion[] => [
      { verb: 'create', group: 'apps', resource: 'deployments', namespace },
      { verb: 'patch', group: '', resource: 'configmaps', namespace },
      { verb: 'delete', group: '', resource: 'services', namespace },
    ];
    expect(await refusedOrAllowed({ namespace: teamA, name: `tidemark-${teamA}` }, write(teamA), true)).toEqual([]);
    const outside: AccessQuestion[] = [
      ...write(teamB), ...write('kube-system'),
      { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
      { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'rolebindings', namespace: teamA },
      { verb: 'create', group: '', resource: 'namespaces' },
      { verb: 'get', group: '', resource: 'configmaps', namespace: teamB },
    ];
    expect(await refusedOrAllowed({ namespace: teamA, name: `tidemark-${teamA}` }, outside, false)).toEqual([]);
    expect(await refusedOrAllowed({ namespace: home, name: 'tidemark-nobody' }, [...write(teamA), ...write(teamB), ...write(home)], false)).toEqual([]);
  });
});

describe('the bundled Redis', () => {
  const envOf = (object: Manifest) => podSpecOf(object)!.containers[0]!.env as { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];

  it('requires a generated password that the reconciler and the dashboard take from the same Secret, before the URL that uses it', () => {
    const secret = objects.find((object) => object.kind === 'Secret' && object.metadata.name === `${release}-tidemark-redis-auth`) as Manifest & { data: { password: string } };
    expect(Buffer.from(secret.data.password, 'base64').toString()).toMatch(/^[A-Za-z0-9]{40}$/);
    const redis = component(objects, 'StatefulSet', 'redis');
    const args = (podSpecOf(redis)!.containers[0]!.args ?? []).join(' ');
    expect(args).toContain('--requirepass $(REDIS_PASSWORD)');
    expect(envOf(redis).find((entry) => entry.name === 'REDISCLI_AUTH')?.valueFrom?.secretKeyRef).toEqual({ name: secret.metadata.name, key: 'password' });
    for (const app of ['reconciler', 'dashboard']) {
      const env = envOf(component(objects, 'Deployment', app));
      const password = env.findIndex((entry) => entry.name === 'TIDEMARK_REDIS_PASSWORD');
      const url = env.findIndex((entry) => entry.name === 'TIDEMARK_REDIS_URL');
      // Kubernetes expands $(NAME) only from variables defined earlier in the list.
      expect(password, app).toBeGreaterThanOrEqual(0);
      expect(password, app).toBeLessThan(url);
      expect(env[password]?.valueFrom?.secretKeyRef, app).toEqual({ name: secret.metadata.name, key: 'password' });
      expect(env[url]?.value, app).toBe(`redis://default:$(TIDEMARK_REDIS_PASSWORD)@${release}-tidemark-redis:6379`);
    }
  });

  it('uses a Secret the user names instead, and then renders none', async () => {
    const rendered = await renderHelm({ name: release, namespace: home, set: ['redis.auth.existingSecret=my-redis'] });
    expect(rendered.some((object) => object.kind === 'Secret')).toBe(false);
    const env = envOf(component(rendered, 'Deployment', 'reconciler'));
    expect(env.find((entry) => entry.name === 'TIDEMARK_REDIS_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({ name: 'my-redis', key: 'password' });
  }, 600_000);
});
