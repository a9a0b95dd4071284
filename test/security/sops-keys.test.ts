// Issue 34 item 7, black-box: SOPS is not a decryption oracle. Two tenants, each with a Source
// object and its own age key. team-b's encrypted Secret is applied with team-b's key. team-a
// copies team-b's encrypted file byte for byte, once into a configMapGenerator and once as a whole
// unit at the same path (same input digest, so a shared render cache would hand it team-b's
// output): both are refused with DecryptFailed naming the file, and team-b's password appears in
// no object of team-a, no Source status, no Event and no log line. And a source whose own key
// decrypts a file may still not put the value in a ConfigMap (DecryptedValueOutsideSecret). A key
// Secret that did not opt in for the Source (label tidemark.dev/source) is not used.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, createObject, getObject } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { kubectl, renderToolsDir, run, startGitServer, type GitServer } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { renderTools, type Tools } from '../render/render-fixture';

const id = randomUUID().slice(0, 8);
const teamA = `sa-${id}`;
const teamB = `sb-${id}`;
const password = `team-b-db-password-${randomBytes(8).toString('hex')}`;
const kubeconfigPath = inject('kubeconfigPath');
const logLines: string[] = [];
let git: GitServer;
let work: string;
let tools: Tools;
let admin: ClusterConnection;
let reconciler: RunningReconciler;

const b64 = (text: string) => Buffer.from(text).toString('base64');
const getLive = (kind: string, namespace: string, name: string) => getObject(admin, { apiVersion: 'v1', kind, namespace, name });
const sourceObject = (namespace: string, name: string) => getObject(admin, { apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', namespace, name });

/** newAgeKey writes an age identity file and returns its public recipient. */
async function newAgeKey(name: string): Promise<{ file: string; recipient: string }> {
  const file = join(work, `${name}.agekey`);
  await run(tools.ageKeygen, ['-o', file]);
  return { file, recipient: (await run(tools.ageKeygen, ['-y', file])).trim() };
}

async function encryptSecret(recipient: string, name: string): Promise<string> {
  const plain = join(work, `${name}-plain.yaml`);
  await writeFile(plain, stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', stringData: { password } }));
  return run(tools.sops, ['--encrypt', '--age', recipient, '--encrypted-regex', '^(data|stringData)$', plain], { env: { PATH: process.env.PATH ?? '', HOME: work } });
}

async function repository(name: string, files: Record<string, string>): Promise<string> {
  const url = await git.createRepository(`${name}-${id}`);
  const copy = await git.workingCopy(`${name}-${id}`);
  for (const [path, text] of Object.entries(files)) await copy.write(path, text);
  await copy.commitAndPush(`${name} first`);
  return url;
}

/** tenant makes a namespace with a deployer ServiceAccount and a Secret holding the team's own age key. */
async function tenant(namespace: string, keyFile: string): Promise<void> {
  await kubectl(kubeconfigPath, ['create', 'namespace', namespace]);
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'deployer', namespace } };
  await applyObject(admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer', namespace } });
  await applyObject(admin, { ...rbac, kind: 'Role', rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }] } as KubernetesManifest);
  await applyObject(admin, { ...rbac, kind: 'RoleBinding', roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'deployer' }, subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace }] } as KubernetesManifest);
  await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sops-keys', namespace, labels: { 'tidemark.dev/source': 'apps' } }, data: { 'identity.agekey': b64(await readFile(keyFile, 'utf8')) } } as KubernetesManifest);
}

const source = (namespace: string, url: string, name = 'apps', keys = 'sops-keys'): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name, namespace },
  spec: { url, ref: { branch: 'main' }, intervalMs: 1_000, serviceAccount: { namespace, name: 'deployer' }, decryption: { secretRef: { name: keys } } },
});
let urlA = '';

beforeAll(async () => {
  tools = await renderTools();
  work = await mkdtemp(join(tmpdir(), 'tidemark-sops-keys-'));
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  git = await startGitServer();
  const keyA = await newAgeKey('team-a');
  const keyB = await newAgeKey('team-b');
  await tenant(teamA, keyA.file);
  await tenant(teamB, keyB.file);
  const teamBFile = await encryptSecret(keyB.recipient, 'db');
  const urlB = await repository('team-b', {
    'db/kustomization.yaml': stringify({ namespace: teamB, resources: ['db.enc.yaml'] }),
    'db/db.enc.yaml': teamBFile,
    // team-b's own key decrypts this file, but a decrypted value may not land in a ConfigMap.
    'shown/kustomization.yaml': stringify({ namespace: teamB, configMapGenerator: [{ name: 'shown', files: ['db.enc.yaml'] }], generatorOptions: { disableNameSuffixHash: true } }),
    'shown/db.enc.yaml': teamBFile,
  });
  urlA = await repository('team-a', {
    'own/kustomization.yaml': stringify({ namespace: teamA, resources: ['own.enc.yaml'] }),
    'own/own.enc.yaml': await encryptSecret(keyA.recipient, 'own'),
    // The attack: team-b's file, byte for byte, read into a ConfigMap of team-a.
    'leak/kustomization.yaml': stringify({ namespace: teamA, configMapGenerator: [{ name: 'leak', files: ['db.enc.yaml'] }], generatorOptions: { disableNameSuffixHash: true } }),
    'leak/db.enc.yaml': teamBFile,
    // And team-b's whole unit at the same path but in team-a's namespace.
    'db/kustomization.yaml': stringify({ namespace: teamA, resources: ['db.enc.yaml'] }),
    'db/db.enc.yaml': teamBFile,
  });
  await writeFile(join(work, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix: `sops-${id}` },
    cacheDir: join(work, 'cache'),
    sources: [{ name: 'boot', url: await repository('boot', { 'README.md': 'nothing\n' }), ref: { branch: 'main' }, intervalMs: 60_000 }],
    clusters: [{ name: 'rig', kubeconfig: kubeconfigPath }],
    // The operator's key is team-b's, as when one key served every team: only listed sources may use it.
    render: { toolsDir: renderToolsDir, sops: { ageKeyFile: keyB.file, trustedSources: ['boot'] } },
    sourceObjects: { enabled: true, namespaces: [teamA, teamB] },
    http: { port: 0, host: '127.0.0.1' },
  }));
  const logStream = new Writable({ write(chunk: Buffer, _encoding, done) { logLines.push(chunk.toString()); done(); } });
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(work, 'tidemark.yaml') }), createLogger('debug', logStream));
  await createObject(admin, source(teamB, urlB));
  await createObject(admin, source(teamA, urlA));
}, 600_000);

afterAll(async () => {
  await reconciler?.stop();
  for (const namespace of [teamA, teamB]) {
    for (const name of ['apps', 'borrower']) await kubectl(kubeconfigPath, ['patch', 'source', name, '-n', namespace, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(() => undefined);
    await kubectl(kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  }
  admin?.close();
  await git?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('sops keys are per source', () => {
  it('uses a key Secret only when it opted in for the Source (label tidemark.dev/source)', async () => {
    // Another Secret of team-a's namespace holding team-a's key, made for something else.
    const other = await getLive('Secret', teamA, 'sops-keys') as { data: Record<string, string> } | undefined;
    await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'ci-keys', namespace: teamA }, data: other!.data } as KubernetesManifest);
    await createObject(admin, source(teamA, urlA, 'borrower', 'ci-keys'));
    await expect.poll(() => logLines.join('').includes(`Secret ${teamA}/ci-keys (spec.decryption.secretRef of Source ${teamA}/borrower) has not opted in for Source ${teamA}/borrower, so its keys are not used`), { timeout: 60_000, interval: 500 }).toBe(true);
  });

  it('decrypts each team\'s Secret with its own key from spec.decryption.secretRef', async () => {
    await expect.poll(async () => (await getLive('Secret', teamB, 'db') as { data?: Record<string, string> } | undefined)?.data?.password, { timeout: 60_000, interval: 250 }).toBe(b64(password));
    await expect.poll(async () => (await getLive('Secret', teamA, 'own') as { data?: Record<string, string> } | undefined)?.data?.password, { timeout: 60_000, interval: 250 }).toBe(b64(password));
  });

  it('refuses team-b\'s file copied into team-a\'s configMapGenerator or unit: DecryptFailed naming the file, nothing created', async () => {
    await expect.poll(async () => ((await sourceObject(teamA, 'apps'))?.status as { sourceErrors?: number } | undefined)?.sourceErrors, { timeout: 60_000, interval: 500 }).toBe(2);
    const log = logLines.join('');
    expect(log).toContain(`leak/db.enc.yaml could not be decrypted with the keys of source ${teamA}.apps`);
    expect(log).toContain(`db/db.enc.yaml could not be decrypted with the keys of source ${teamA}.apps`);
    const event = await kubectl(kubeconfigPath, ['get', 'events', '-n', teamA, '--field-selector', 'reason=SourceInvalid', '-o', 'jsonpath={.items[*].message}']);
    expect(event).toContain('DecryptFailed');
    expect(await getLive('ConfigMap', teamA, 'leak')).toBeUndefined();
    expect(await getLive('Secret', teamA, 'db')).toBeUndefined();
  });

  it('refuses a decrypted value in a ConfigMap even with the source\'s own key (DecryptedValueOutsideSecret)', async () => {
    await expect.poll(() => logLines.join('').includes('DecryptedValueOutsideSecret'), { timeout: 60_000, interval: 500 }).toBe(true);
    expect(logLines.join('')).toContain(`shown: ConfigMap ${teamB}/shown holds a value decrypted from a sops file in data.db.enc.yaml; decrypted values may go only into a Secret's data or stringData`);
    expect(await getLive('ConfigMap', teamB, 'shown')).toBeUndefined();
  });

  it('leaks team-b\'s password nowhere: not in team-a\'s objects, a Source status, an Event or a log line', async () => {
    const objects = await kubectl(kubeconfigPath, ['get', 'configmaps,sources,events', '-n', teamA, '-o', 'json']);
    expect(objects).not.toContain(password);
    expect(objects).not.toContain(b64(password));
    expect(await kubectl(kubeconfigPath, ['get', 'sources,events,configmaps', '-n', teamB, '-o', 'json'])).not.toContain(password);
    expect(logLines.join('')).not.toContain(password);
  });
});
