// Drift prevented at admission, on the rig's real API server: a ValidatingAdmissionPolicy that
// Tidemark keeps refuses a `kubectl edit` or delete of a prevented object by anyone but Tidemark
// and the built-in controllers, names the Git file in its refusal, lets a cluster admin break the
// glass for one object, and goes away when no object needs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { PolicyKeeper } from '@tidemark/pipeline';
import { kubeTestenvBinary } from '@tidemark/testing';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startLocalStack, type LocalStack } from '../../scripts/local-stack';

const namespace = 'prevent';
let stack: LocalStack;
let workDir: string;
let connection: ClusterConnection;

function deployment(name: string, replicas: number, annotations: Record<string, string> = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
  annotations: ${JSON.stringify(annotations)}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: app
          image: nginx:1.27
`;
}

const prevent = { 'tidemark.dev/drift': 'prevent' };
const policy = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', name: 'tidemark-drift-prevention' };
const live = (name: string) => getObject(connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name });
const replicasOf = async (name: string) => ((await live(name)) as { spec?: { replicas?: number } } | undefined)?.spec?.replicas;
const statusOf = (name: string) => stack.reconciler.statusStore.get('local', `apps/Deployment/${namespace}/${name}`);
/** kubectl as someone else: impersonated by the rig's admin, as `kubectl --as` does. */
const kubectlAs = (user: string, args: string[], groups: string[] = []) =>
  stack.plane.kubectl([`--as=${user}`, ...groups.map((group) => `--as-group=${group}`), ...args]);
/** The reason kubectl gave for a refusal ('' when it went through). */
const refusal = (attempt: Promise<unknown>) => attempt.then(() => '', (error: unknown) => String(error));

/** kubectlEdit runs a real `kubectl edit` whose editor is a sed script, as a user at a terminal would. */
function kubectlEdit(user: string, target: string, script: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn(kubeTestenvBinary, ['kubectl', '--kubeconfig', stack.plane.kubeconfigPath, `--as=${user}`, 'edit', target, '-n', namespace], {
      env: { ...process.env, KUBE_EDITOR: `sed -i -e '${script}'` }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => done(code === 0 ? '' : output));
  });
}

async function push(files: Record<string, string | undefined>, message: string): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    if (content === undefined) await rm(join(stack.repo.dir, file));
    else await writeFile(join(stack.repo.dir, file), content);
  }
  await stack.repo.commitAndPush(message);
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-prevent-'));
  const sample = join(workDir, 'sample');
  await mkdir(sample, { recursive: true });
  await writeFile(join(sample, 'ns.yaml'), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await writeFile(join(sample, 'guarded.yaml'), deployment('guarded', 2, prevent));
  await writeFile(join(sample, 'glass.yaml'), deployment('glass', 2, prevent));
  await writeFile(join(sample, 'open.yaml'), deployment('open', 2));
  stack = await startLocalStack({ workDir: join(workDir, 'run'), sampleDir: sample, log: createLogger('warn'), intervalMs: 600_000 });
  connection = ClusterConnection.connect({ cluster: 'local', kubeconfig: stack.plane.kubeconfig });
  // alice may edit anything by RBAC (cluster-admin, but not in system:masters): only the policy stops her.
  // The two controller identities stand in for the HPA and the deployment controller (their own RBAC is not what is tested).
  await stack.plane.kubectl(['create', 'clusterrolebinding', 'alice-admin', '--clusterrole=cluster-admin', '--user=alice', '--user=carol',
    '--serviceaccount=kube-system:horizontal-pod-autoscaler', '--serviceaccount=kube-system:deployment-controller']);
  const deadline = Date.now() + 60_000;
  while (!(await Promise.all(['guarded', 'glass', 'open'].map(statusOf))).every((status) => status?.lastAppliedRevision)) {
    if (Date.now() > deadline) throw new Error('the sample was not reconciled within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The API server takes up a new policy and binding a moment after they are written.
  while (await refusal(kubectlAs('alice', ['annotate', 'deployment', 'guarded', '-n', namespace, 'example.com/probe=1', '--dry-run=server'])) === '') {
    if (Date.now() > deadline) throw new Error('the drift-prevention policy was not in force within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 180_000);

afterAll(async () => {
  connection?.close();
  await stack?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('drift prevention', () => {
  it('labels the prevented objects for the policy, names their Git file, and leaves the others alone', async () => {
    expect((await live('guarded'))?.metadata.labels?.['tidemark.dev/drift-prevent']).toBe('true');
    expect((await live('guarded'))?.metadata.annotations?.['tidemark.dev/git-file']).toBe('sample: guarded.yaml');
    expect((await live('open'))?.metadata.labels?.['tidemark.dev/drift-prevent']).toBeUndefined();
    expect(await getObject(connection, policy)).toBeDefined();
  });

  it('refuses a kubectl edit of a prevented Deployment with a message naming the Git file, and a delete', async () => {
    const edited = await kubectlEdit('alice', 'deployment/guarded', 's/replicas: 2/replicas: 7/');
    expect(edited).toMatch(/Deployment prevent\/guarded is declared in Git \(sample: guarded\.yaml\) and Tidemark prevents changes made outside Git: change it there/);
    expect(await replicasOf('guarded')).toBe(2);
    expect(await refusal(kubectlAs('alice', ['delete', 'deployment', 'guarded', '-n', namespace]))).toMatch(/declared in Git \(sample: guarded\.yaml\)/);
    // Removing the label to escape the policy is an update of a labelled object: refused too.
    expect(await refusal(kubectlAs('alice', ['label', 'deployment', 'guarded', '-n', namespace, 'tidemark.dev/drift-prevent-']))).toMatch(/prevents changes made outside Git/);
    expect(await live('guarded')).toBeDefined();
  });

  it('lets Tidemark apply a new commit, and the built-in controllers (the HPA) scale', async () => {
    await push({ 'guarded.yaml': deployment('guarded', 3, prevent) }, 'guarded: 3 replicas');
    await expect.poll(() => replicasOf('guarded'), { timeout: 30_000, interval: 200 }).toBe(3);
    // Stand-in for the HPA controller: its identity, impersonated; the scale subresource is never matched.
    expect(await refusal(kubectlAs('system:serviceaccount:kube-system:horizontal-pod-autoscaler', ['scale', 'deployment', 'guarded', '-n', namespace, '--replicas=4']))).toBe('');
    // A trusted controller may also write the object itself (the deployment controller's revision annotation, say).
    expect(await refusal(kubectlAs('system:serviceaccount:kube-system:deployment-controller', ['annotate', 'deployment', 'guarded', '-n', namespace, 'example.com/touched=yes']))).toBe('');
    // The scale was drift from Git's 3: healed.
    await expect.poll(() => replicasOf('guarded'), { timeout: 30_000, interval: 200 }).toBe(3);
  });

  it('lets only a break-glass group member lift prevention on one object, then reports drift there instead of healing it', async () => {
    expect(await refusal(kubectlAs('alice', ['annotate', 'deployment', 'glass', '-n', namespace, 'tidemark.dev/break-glass=incident 42']))).toMatch(/system:masters may set the annotation tidemark\.dev\/break-glass/);
    expect(await refusal(kubectlAs('carol', ['annotate', 'deployment', 'glass', '-n', namespace, 'tidemark.dev/break-glass=incident 42'], ['system:masters', 'system:authenticated']))).toBe('');
    expect(await kubectlEdit('alice', 'deployment/glass', 's/replicas: 2/replicas: 5/')).toBe('');
    await expect.poll(async () => (await statusOf('glass'))?.warnings?.join(' ') ?? '', { timeout: 30_000, interval: 200 })
      .toMatch(/Drift prevention is lifted on Deployment prevent\/glass \(tidemark\.dev\/break-glass: incident 42\)/);
    expect(await replicasOf('glass')).toBe(5);
    // The other prevented object is still guarded.
    expect(await kubectlEdit('alice', 'deployment/guarded', 's/replicas: 3/replicas: 8/')).toMatch(/prevents changes made outside Git/);
  });

  it('still heals an object that is not prevented', async () => {
    expect(await refusal(kubectlAs('alice', ['scale', 'deployment', 'open', '-n', namespace, '--replicas=6']))).toBe('');
    await expect.poll(() => replicasOf('open'), { timeout: 30_000, interval: 200 }).toBe(2);
  });

  it('trusts a tenant\'s identity only in the namespaces it wrote prevented objects in', async () => {
    const tenant = 'system:serviceaccount:team-a:deployer';
    await stack.plane.kubectl(['create', 'namespace', 'team-a']);
    // The tenant may edit anything by RBAC: only the policy stands between it and another tenant's objects.
    await stack.plane.kubectl(['create', 'clusterrolebinding', 'team-a-admin', '--clusterrole=cluster-admin', `--serviceaccount=team-a:deployer`]);
    // Its own prevented object, as a tenant source would have applied it (the rig's admin is Tidemark's identity here).
    await stack.plane.kubectl(['create', 'deployment', 'own', '-n', 'team-a', '--image=nginx:1.27']);
    await stack.plane.kubectl(['label', 'deployment', 'own', '-n', 'team-a', 'tidemark.dev/drift-prevent=true']);
    // What a run as that tenant asks of the keeper before it applies its prevented object.
    const keeper = new PolicyKeeper({ connectionFor: () => connection });
    try {
      await keeper.ensure('local', { identity: tenant, namespaces: ['team-a'], kinds: ['apps/Deployment'] });
      const tenants = (await getObject(connection, policy))?.metadata.annotations?.['tidemark.dev/tenant-users'];
      expect(JSON.parse(tenants ?? '{}')).toEqual({ [tenant]: ['team-a'] });
      // In force a moment after it is written: the tenant may then change its own prevented object…
      await expect.poll(() => refusal(kubectlAs(tenant, ['annotate', 'deployment', 'own', '-n', 'team-a', 'example.com/by-tenant=1', '--overwrite'])), { timeout: 30_000, interval: 250 }).toBe('');
      // …and never another namespace's, which it could before (it was trusted cluster-wide).
      expect(await refusal(kubectlAs(tenant, ['annotate', 'deployment', 'guarded', '-n', namespace, 'example.com/by-tenant=1']))).toMatch(/prevents changes made outside Git/);
      expect(await refusal(kubectlAs(tenant, ['delete', 'deployment', 'guarded', '-n', namespace]))).toMatch(/prevents changes made outside Git/);
      // Tidemark's own runs go on writing both, and a later write keeps the tenant's namespace.
      await keeper.ensure('local', { kinds: ['apps/Deployment'] });
      expect(JSON.parse((await getObject(connection, policy))?.metadata.annotations?.['tidemark.dev/tenant-users'] ?? '{}')).toEqual({ [tenant]: ['team-a'] });
    } finally {
      keeper.stop();
      await stack.plane.kubectl(['delete', 'namespace', 'team-a', '--wait=true']);
    }
  });

  it('removes the policy once no object needs it', async () => {
    await push({ 'glass.yaml': undefined, 'guarded.yaml': deployment('guarded', 3) }, 'nothing prevented any more');
    await expect.poll(async () => (await live('guarded'))?.metadata.labels?.['tidemark.dev/drift-prevent'] ?? 'gone', { timeout: 30_000, interval: 200 }).toBe('gone');
    await expect.poll(() => getObject(connection, policy), { timeout: 30_000, interval: 250 }).toBeUndefined();
    await expect.poll(() => getObject(connection, { ...policy, kind: 'ValidatingAdmissionPolicyBinding' }), { timeout: 10_000, interval: 250 }).toBeUndefined();
    // And an edit is healed again, as for any object.
    expect(await kubectlEdit('alice', 'deployment/guarded', 's/replicas: 3/replicas: 9/')).toBe('');
    await expect.poll(() => replicasOf('guarded'), { timeout: 30_000, interval: 200 }).toBe(3);
  });
});
