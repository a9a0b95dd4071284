// A full control plane that is halted and restarted (as the fleet suite does to a cluster) is
// ready again only when its simulated nodes are played by the new KWOK: the node Leases of the
// run before are released, so pods scheduled after the restart run at once instead of waiting
// for the old KWOK's Leases to expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '@tidemark/testing';

let plane: ControlPlane;

interface NodeLease { spec: { holderIdentity?: string; renewTime?: string } }

const nodeLease = async (): Promise<NodeLease['spec']> =>
  (JSON.parse(await plane.kubectl(['get', 'lease', '-n', 'kube-node-lease', 'kwok-node-0', '-o', 'json'])) as NodeLease).spec;

beforeAll(async () => {
  plane = await startControlPlane({ name: 'restart', controllers: { nodes: 1 } });
});

afterAll(async () => {
  await plane?.stop();
});

describe('a full control plane restarted on its own state', () => {
  it('is ready only once the new KWOK holds the node Leases, and then runs new pods', async () => {
    const before = await nodeLease();
    expect(before.holderIdentity).toBeTruthy();
    await plane.halt();
    const restarted = new Date();
    await plane.restart();

    const after = await nodeLease();
    expect(after.holderIdentity).not.toBe(before.holderIdentity);
    expect(Date.parse(after.renewTime ?? '')).toBeGreaterThanOrEqual(restarted.getTime() - 1_000);

    await plane.kubectl(['create', 'deployment', 'after-restart', '--image=registry.example/app:1', '--replicas=2']);
    await expect.poll(async () => JSON.parse(await plane.kubectl(['get', 'deployment', 'after-restart', '-o', 'json'])).status?.availableReplicas ?? 0, { timeout: 90_000, interval: 500 }).toBe(2);
  });
});
