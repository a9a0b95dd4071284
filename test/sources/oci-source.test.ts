// OCI artifact sources against a real CNCF distribution registry (htpasswd auth, TLS with a test CA, on
// loopback), artifacts pushed by the real oras CLI. A reconciler started from a tidemark.yaml applies what a
// semver range names and follows a new tag; GitSource polls by digest, and every hostile artifact (too large,
// a tar bomb, a link, `..`), wrong credentials, a redirect to another origin and a missing or foreign
// signature are refused with a sentence that says why.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys } from '@tidemark/contracts';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { buildOciRegistry, freePort, startOciRegistry, type TestOciRegistry } from '@tidemark/testing';
import type { RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { startConfigFileReconciler } from '../support/config-file-reconciler';
import { fluxLayer, pushLayer, signArtifact, tarOf } from './oci-artifacts';

const suffix = randomUUID().slice(0, 8);
const prefix = `oci-${suffix}`;
const namespace = `oci-${suffix}`;
let registry: TestOciRegistry;
let redirecting: TestOciRegistry;
let workDir: string;
let admin: ClusterConnection;
let redis: Redis;
const opened: GitSource[] = [];

const manifests = (value: string) => ({
  'namespace.yaml': stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
  'settings.yaml': stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { value } }),
});

/** source opens a GitSource on an oci:// spec (with the registry's CA and login unless given). */
async function source(repository: string, spec: Record<string, unknown> = {}, on: TestOciRegistry = registry): Promise<GitSource> {
  const name = `o${randomUUID().slice(0, 8)}`;
  const parsed = parseSourceSpec({ name, url: on.url(repository), ref: { tag: 'v1' }, intervalMs: 1000, auth: on.user, oci: { certificateAuthority: on.caPem }, ...spec }, name);
  const opened_ = new GitSource({ spec: parsed, cacheDir: join(workDir, 'sources', name) });
  await opened_.open();
  opened.push(opened_);
  return opened_;
}

beforeAll(async () => {
  await buildOciRegistry();
  registry = await startOciRegistry();
  // A second front on the same blobs that answers blob downloads with a redirect to another origin, as
  // registries on object storage do.
  redirecting = await startOciRegistry({ ca: registry.ca, storageDir: registry.storageDir, redirectBlobsTo: `https://localhost:${await freePort()}` });
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-oci-'));
  admin = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
}, 900_000);

afterAll(async () => {
  for (const each of opened) await each.close();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  redis?.disconnect();
  await redirecting?.stop();
  await registry?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('an OCI source applied by the reconciler', () => {
  let reconciler: RunningReconciler | undefined;
  afterAll(async () => reconciler?.stop());

  it('applies the highest tag in its semver range, then a new tag in the range, never one outside it', async () => {
    const valueOf = async () => ((await getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: { value?: string } } | undefined)?.data?.value;
    const record = async () => redis.hgetall(new RecordKeys(prefix).sourceStatus('artifacts'));
    await pushLayer(registry, 'team/apps', '1.0.0', await fluxLayer(manifests('one')));
    await writeFile(join(workDir, 'registry-password'), `${registry.user.password}\n`);
    reconciler = await startConfigFileReconciler(workDir, prefix, {
      sources: [{
        name: 'artifacts', url: registry.url('team/apps'), ref: { semver: '1.x' }, intervalMs: 1_000,
        auth: { username: registry.user.username, password: { file: './registry-password' } },
        oci: { certificateAuthority: registry.caPem },
      }],
    });
    await expect.poll(valueOf, { timeout: 60_000 }).toBe('one');
    const second = await pushLayer(registry, 'team/apps', '1.1.0', await fluxLayer(manifests('two')));
    await expect.poll(valueOf, { timeout: 30_000 }).toBe('two');
    await expect.poll(async () => (await record()).commitMessage, { timeout: 15_000 }).toContain(second);
    await pushLayer(registry, 'team/apps', '2.0.0', await fluxLayer(manifests('three')));
    // Two polls after the push (polledAt moves at each): 2.0.0 was listed and passed over.
    const seen = new Set([(await record()).polledAt]);
    await expect.poll(async () => seen.add((await record()).polledAt).size, { timeout: 20_000 }).toBeGreaterThan(2);
    expect(await valueOf()).toBe('two');
    expect((await record()).commitMessage).toContain(second);
    expect(JSON.stringify(await record())).not.toContain(registry.user.password);
  }, 180_000);
});

describe('polling an OCI source', () => {
  it('a poll while the tag stays is one HEAD request and fetches nothing; a moved tag is pulled', async () => {
    await pushLayer(registry, 'poll/apps', 'v1', await fluxLayer(manifests('one')));
    const apps = await source('poll/apps');
    const first = await apps.poll();
    expect(first.errors).toEqual([]);
    expect(first.declaredObjects).toBe(2);
    expect(first.commit?.message).toMatch(/^OCI artifact 127\.0\.0\.1:\d+\/poll\/apps@sha256:[0-9a-f]{64}$/);
    const before = apps.registryRequests!;
    const again = await apps.poll();
    expect({ moved: again.moved, fetched: again.fetchedObjects, changes: again.changes.length, requests: apps.registryRequests! - before }).toEqual({ moved: false, fetched: 0, changes: 0, requests: 1 });
    const moved = await pushLayer(registry, 'poll/apps', 'v1', await fluxLayer(manifests('two')));
    const third = await apps.poll();
    expect(third.moved).toBe(true);
    expect(third.commit?.message).toContain(moved);
    expect(third.changes.map((change) => change.objectKey)).toEqual([expect.stringContaining('ConfigMap')]);
    expect((await apps.readObject(third.revision, third.changes[0]!.objectKey))?.object).toMatchObject({ data: { value: 'two' } });
  });

  it('the same artifact makes the same commit in another cache, so a worker admits the poller\'s revision', async () => {
    const digest = await pushLayer(registry, 'poll/pinned', 'v1', await fluxLayer(manifests('pinned')));
    const poller = await source('poll/pinned', { ref: { digest } });
    const worker = await source('poll/pinned', { ref: { digest } });
    const polled = await poller.poll();
    expect(await worker.admitRevision(polled.revision)).toBe(polled.revision);
    const before = poller.registryRequests!;
    await poller.poll();
    expect(poller.registryRequests! - before).toBe(0);
  });

  it('wrong credentials are refused with a sentence that names the registry and never the password', async () => {
    await pushLayer(registry, 'auth/apps', 'v1', await fluxLayer(manifests('one')));
    const apps = await source('auth/apps', { auth: { username: registry.user.username, password: 'not-the-password' } });
    const error = await apps.poll().then(() => undefined, (caught: unknown) => caught as Error & { code?: string });
    expect(error?.code).toBe('OciAuthFailed');
    expect(error?.message).toMatch(/answered 401 \(the credentials were refused/);
    expect(error?.message).not.toContain('not-the-password');
    const anonymous = await source('auth/apps', { auth: undefined });
    await expect(anonymous.poll()).rejects.toThrow(/the registry wants a login: give the source auth/);
  });
});

describe('hostile artifacts', () => {
  const refusedWith = async (repository: string, layer: Buffer, spec: Record<string, unknown> = {}) => {
    await pushLayer(registry, repository, 'v1', layer);
    const apps = await source(repository, spec);
    return apps.poll().then(() => undefined, (caught: unknown) => caught as Error & { code?: string });
  };

  it('a layer larger than the source may fetch is refused from its manifest, before it is downloaded', async () => {
    const error = await refusedWith('hostile/large', gzipSync(await tarOf([{ header: { name: 'big.yaml', type: 'file' }, data: randomBytes(2 * 1024 * 1024) }]), { level: 0 }), { limits: { maxFetchMiB: 1 } });
    expect(error?.code).toBe('OciTooLarge');
    expect(error?.message).toMatch(/the layer is \d+ bytes, more than this source may download \(1048576\); nothing of it was downloaded/);
  });

  it('a tar bomb (1 MiB of layer inflating to 64 MiB) stops at the inflation limit', async () => {
    // Sixteen files of 4 MiB of zeros: each under the largest-file limit, together past the inflation limit.
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const bomb = gzipSync(await tarOf(Array.from({ length: 16 }, (_, index) => ({ header: { name: `zeros-${index}.yaml`, type: 'file' as const }, data: zeros }))), { level: 9 });
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    const error = await refusedWith('hostile/bomb', bomb, { limits: { maxFetchMiB: 8 } });
    expect(error?.code).toBe('OciTooLarge');
    expect(error?.message).toMatch(/inflates to more than 8388608 bytes/);
  });

  it.each([
    ['a symlink', { name: 'link.yaml', type: 'symlink' as const, linkname: '/etc/passwd' }, /entry "link\.yaml" is a symlink; only files and folders are allowed/],
    ['a hard link', { name: 'hard.yaml', type: 'link' as const, linkname: 'settings.yaml' }, /entry "hard\.yaml" is a link/],
    ['a device', { name: 'dev', type: 'character-device' as const, devmajor: 1, devminor: 3 }, /entry "dev" is a character-device/],
    ['a path out of the artifact', { name: '../escape.yaml', type: 'file' as const }, /entry "\.\.\/escape\.yaml" leads out of the artifact/],
    ['an absolute path', { name: '/etc/cron.d/x', type: 'file' as const }, /entry "\/etc\/cron\.d\/x" is not a relative path/],
  ])('%s in the layer refuses the whole artifact', async (_what, header, message) => {
    const layer = gzipSync(await tarOf([{ header: { name: 'settings.yaml', type: 'file' }, data: manifests('x')['settings.yaml'] }, { header, data: header.type === 'file' ? 'x: 1\n' : '' }]));
    const error = await refusedWith(`hostile/entry-${randomUUID().slice(0, 6)}`, layer);
    expect(error?.code).toBe('OciLayerRefused');
    expect(error?.message).toMatch(message);
  });

  it('a path spelled two ways (a/b.yaml and ./a/b.yaml) refuses the artifact', async () => {
    const layer = gzipSync(await tarOf([{ header: { name: 'a/b.yaml', type: 'file' }, data: 'a: 1\n' }, { header: { name: './a/b.yaml', type: 'file' }, data: 'a: 2\n' }]));
    const error = await refusedWith('hostile/twice', layer);
    expect(error?.message).toMatch(/the path "a\/b\.yaml" appears twice/);
  });

  it('a registry that redirects the layer download to another origin is refused, and nothing is read', async () => {
    await pushLayer(registry, 'hostile/redirect', 'v1', await fluxLayer(manifests('one')));
    const apps = await source('hostile/redirect', {}, redirecting);
    const error = await apps.poll().then(() => undefined, (caught: unknown) => caught as Error & { code?: string });
    expect(error?.code).toBe('OciRedirectRefused');
    expect(error?.message).toMatch(/redirected to https:\/\/localhost:\d+, which is refused: requests to a registry stay within its origin/);
  });
});

describe('cosign signatures', () => {
  const keys = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = (key: ReturnType<typeof keys>) => key.publicKey.export({ type: 'spki', format: 'pem' }).toString();

  it('an unsigned artifact is refused when the source names keys; the same artifact signed is applied', async () => {
    const signer = keys();
    const digest = await pushLayer(registry, 'signed/apps', 'v1', await fluxLayer(manifests('signed')));
    const apps = await source('signed/apps', { oci: { certificateAuthority: registry.caPem, cosignKeys: [pem(signer)] } });
    await expect(apps.poll()).rejects.toThrow(/has no cosign signature \(no tag sha256-[0-9a-f]{64}\.sig\) and the source requires one; nothing of it is applied/);
    await signArtifact(registry, 'signed/apps', digest, signer.privateKey);
    const polled = await apps.poll();
    expect(polled.declaredObjects).toBe(2);
    expect(polled.commit?.message).toContain(digest);
  });

  it('a signature by another key, or of another artifact, is refused', async () => {
    const trusted = keys();
    const stranger = keys();
    const digest = await pushLayer(registry, 'signed/others', 'v1', await fluxLayer(manifests('x')));
    await signArtifact(registry, 'signed/others', digest, stranger.privateKey);
    const apps = await source('signed/others', { oci: { certificateAuthority: registry.caPem, cosignKeys: [pem(trusted)] } });
    await expect(apps.poll()).rejects.toThrow(/none of the 1 signature\(s\) at sha256-[0-9a-f]{64}\.sig is by a key the source trusts/);
    // A valid signature by the trusted key over another digest, replayed under this artifact's .sig tag.
    await signArtifact(registry, 'signed/others', digest, trusted.privateKey, { signedDigest: `sha256:${'0'.repeat(64)}` });
    await expect(apps.poll()).rejects.toThrow(/is by a key the source trusts over artifact/);
  });
});
