// Tidemark's own CRDs belong to Tidemark: a CRD in Git that declares a built-in kind is a
// Conflict and is never applied or pruned; a hand deletion or edit is undone by the watch; a
// CRD Git replaced without leave is taken back. On a control plane of its own (it deletes CRDs).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { applyObject, getObject } from '@tidemark/cluster';
import { findCondition, TerminalError, type KubernetesManifest } from '@tidemark/contracts';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { watchBuiltinCrds } from '@tidemark/watches';
import { parse } from 'yaml';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';
import { startTestConversionWebhook, type TestConversionWebhook } from '../support/conversion-webhook';
import { installBuiltinCrds } from '@tidemark/conversion';

const seedCrd = fileURLToPath(new URL('../../examples/seed-configwatcher/crd.yaml', import.meta.url));
const name = 'configwatchers.k8spatterns.com';
const key = `apiextensions.k8s.io/CustomResourceDefinition/_/${name}`;
let plane: ControlPlane;
let harness: PipelineHarness;
let conversion: TestConversionWebhook;
let watch: { synced: Promise<void>; stop(): Promise<void> } | undefined;

const liveCrd = () => getObject(harness.connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
const hasStatusSubresource = async () => Boolean(((await liveCrd())?.spec as { versions?: { subresources?: { status?: unknown } }[] } | undefined)?.versions?.[0]?.subresources?.status);

beforeAll(async () => {
  plane = await startControlPlane({ name: 'builtin-crds' });
  conversion = await startTestConversionWebhook();
  harness = await startPipelineHarness(plane.kubeconfig, inject('redisUrl'));
  await installBuiltinCrds(harness.connection, harness.kinds, conversion.conversion());
});
afterAll(async () => {
  await watch?.stop();
  await harness?.stop();
  await plane?.stop();
  await conversion?.stop();
});

describe('built-in CRDs', () => {
  it('refuses the original ConfigWatcher CRD from Git as a Conflict naming the built-in kind, applies nothing, and never prunes it', async () => {
    await harness.repo.write('crd.yaml', await readFile(seedCrd, 'utf8'));
    const { results } = await harness.pushAndReconcile('the original ConfigWatcher CRD');
    const failure = results.get(key);
    expect(failure).toBeInstanceOf(TerminalError);
    expect((failure as TerminalError).code).toBe('Conflict');
    expect((failure as Error).message).toMatch(/CustomResourceDefinition configwatchers\.k8spatterns\.com \(crd\.yaml:\d+\) is the CRD of Tidemark's built-in kind ConfigWatcher \(k8spatterns\.com\/v1\)/);
    expect((failure as Error).message).toContain('manageBuiltinCrds');
    expect(await hasStatusSubresource()).toBe(true);
    const record = await harness.statusStore.get(harness.cluster, key);
    expect(findCondition(record?.conditions, 'Ready')).toMatchObject({ status: 'False', reason: 'Conflict' });
    expect(findCondition(record?.conditions, 'Stalled')?.status).toBe('True');

    // The natural clean-up: remove the file. Tidemark's CRD stays.
    await harness.repo.delete('crd.yaml');
    await harness.pushAndReconcile('remove the CRD file');
    expect((await liveCrd())?.metadata.deletionTimestamp).toBeUndefined();
    expect(await hasStatusSubresource()).toBe(true);
  });

  it('installs its CRD again when it is deleted or edited by hand', async () => {
    watch = watchBuiltinCrds({
      clusters: new Map([[harness.cluster, harness.connection]]),
      crdNames: harness.kinds.list().map((plugin) => plugin.crd.metadata.name),
      reinstall: () => installBuiltinCrds(harness.connection, harness.kinds, conversion.conversion()),
      settleMs: 200,
    });
    await watch.synced;
    await plane.kubectl(['patch', 'crd', name, '--type=json', '-p', '[{"op":"remove","path":"/spec/versions/0/subresources"}]']);
    await expect.poll(hasStatusSubresource, { timeout: 30_000 }).toBe(true);

    const before = (await liveCrd())?.metadata.uid;
    // Not --wait: kubectl's wait has no deadline of its own (a full CI run once hung here until the test's
    // 120 s). The poll below is the wait, bounded, and proves the same thing: a new CRD, not terminating.
    await plane.kubectl(['delete', 'crd', name, '--wait=false']);
    await expect.poll(async () => {
      const crd = await liveCrd();
      return crd && crd.metadata.uid !== before && !crd.metadata.deletionTimestamp;
    }, { timeout: 60_000 }).toBe(true);
    expect(await hasStatusSubresource()).toBe(true);
  });

  it('takes its CRD back from a Git apply that was not allowed, and leaves it to a source that is', async () => {
    await watch?.stop();
    // What an earlier Tidemark did: the original CRD applied from Git as Tidemark's main field manager.
    const original = parse(await readFile(seedCrd, 'utf8')) as KubernetesManifest;
    await applyObject(harness.connection, original);
    expect(await hasStatusSubresource()).toBe(false);
    expect(await installBuiltinCrds(harness.connection, harness.kinds, conversion.conversion(), { gitManaged: new Set([name]) })).toEqual([]);
    expect(await hasStatusSubresource()).toBe(false);
    expect(await installBuiltinCrds(harness.connection, harness.kinds, conversion.conversion())).toContain(`CustomResourceDefinition ${name}`);
    expect(await hasStatusSubresource()).toBe(true);
  });
});
