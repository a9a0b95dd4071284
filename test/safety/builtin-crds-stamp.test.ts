// A start on a cluster that already has the built-in CRDs, as Tidemark installed them, sends a GET
// for each and writes nothing, nor waits on them (crd-stamp); a CRD changed by hand since, or one
// whose stamp is gone, is applied again. On a control plane of its own (it edits CRDs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import { installBuiltinCrds } from '@tidemark/conversion';
import { createDefaultRegistry } from '@tidemark/kinds';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';
import { startTestConversionWebhook, type TestConversionWebhook } from '../support/conversion-webhook';

const stamp = 'tidemark.dev/installed-crd';
const name = 'configwatchers.k8spatterns.com';
const kinds = createDefaultRegistry();
const requests: string[] = [];
let plane: ControlPlane;
let conversion: TestConversionWebhook;
let connection: ClusterConnection;

const liveCrd = async (crd = name) => (await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd })) as KubernetesManifest;
const hasStatusSubresource = async () => Boolean(((await liveCrd()).spec as { versions?: { subresources?: { status?: unknown } }[] }).versions?.[0]?.subresources?.status);
/** install installs the built-in CRDs and gives what it changed and the requests it sent (method and path). */
const install = async () => {
  requests.length = 0;
  const changed = await installBuiltinCrds(connection, kinds, conversion.conversion());
  return { changed, requests: [...requests] };
};

beforeAll(async () => {
  plane = await startControlPlane({ name: 'builtin-crds-stamp' });
  conversion = await startTestConversionWebhook();
  connection = ClusterConnection.connect({ cluster: 'stamp', kubeconfig: plane.kubeconfig, onResponse: (event) => requests.push(`${event.method}${event.dryRun ? ' dry-run' : ''} ${event.path}`) });
});
afterAll(async () => {
  connection?.close();
  await plane?.stop();
  await conversion?.stop();
});

describe('built-in CRDs already installed', () => {
  it('installs each CRD once with a stamp of its generation, then only reads them', async () => {
    const first = await install();
    expect(first.changed).toHaveLength(kinds.list().length);
    for (const plugin of kinds.list()) {
      const live = await liveCrd(plugin.crd.metadata.name);
      expect(live.metadata.annotations?.[stamp]).toMatch(new RegExp(`^[0-9a-f]{32}@${live.metadata.generation}$`));
    }

    const again = await install();
    expect(again.changed).toEqual([]);
    // A GET of each CRD, and the storage migration's look at each multi-version one: nothing written, nothing awaited.
    expect(again.requests.filter((request) => !request.startsWith('GET '))).toEqual([]);
    expect(again.requests.filter((request) => request.endsWith(`/customresourcedefinitions/${name}`))).toEqual([`GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`]);
  });

  it('applies a CRD again when its spec was edited by hand, or its stamp removed', async () => {
    await plane.kubectl(['patch', 'crd', name, '--type=json', '-p', '[{"op":"remove","path":"/spec/versions/0/subresources"}]']);
    expect(await hasStatusSubresource()).toBe(false);
    expect((await install()).changed).toEqual([`CustomResourceDefinition ${name}`]);
    expect(await hasStatusSubresource()).toBe(true);
    expect((await install()).changed).toEqual([]);

    await plane.kubectl(['annotate', 'crd', name, `${stamp}-`]);
    const restamped = await install();
    expect(restamped.requests).toContain(`PATCH /apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    const live = await liveCrd();
    expect(live.metadata.annotations?.[stamp]).toBe(`${live.metadata.annotations?.[stamp]?.split('@')[0]}@${live.metadata.generation}`);
    expect((await install()).requests.filter((request) => !request.startsWith('GET '))).toEqual([]);
  });
});
