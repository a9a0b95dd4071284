// Read-your-writes under concurrent requests: requests that arrive together share sync markers,
// and each still shows every status write made before it. The cache's own batch is 10 s, so only
// the sync can make a write visible this soon. That no request shares a marker sent before it asked
// is shown in apps/dashboard/src/view/shared-rounds.test.ts.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { parseStatusSync } from '@tidemark/contracts';
import { seededStatus, stalledConditions, startDashboardFixture, viewerToken, type DashboardFixture } from './dashboard-fixture';

let fixture: DashboardFixture;
let listener: Redis;
const markers: string[] = [];
const headers = { authorization: `Bearer ${viewerToken}` };

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'), { liveBatchMs: 10_000 });
  listener = new Redis(inject('redisUrl'));
  await listener.subscribe(fixture.store.channel);
  listener.on('message', (_channel: string, message: string) => {
    const marker = parseStatusSync(message);
    if (marker) markers.push(marker.sync);
  });
});
afterAll(async () => {
  listener?.disconnect();
  await fixture?.stop();
});

/** markersSince returns the sync markers published after `from`, once every one sent so far has arrived. */
async function markersSince(from: number): Promise<string[]> {
  const fence = `fence-${from}-${markers.length}`;
  await fixture.redis.publish(fixture.store.channel, JSON.stringify({ sync: fence }));
  while (!markers.includes(fence)) await new Promise((resolve) => setTimeout(resolve, 10));
  return markers.slice(from).filter((marker) => marker !== fence);
}

const stateOf = async (objectKey: string) => {
  const response = await fixture.app.inject({ url: '/api/objects?pageSize=500', headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ rows: { objectKey: string; cells: Record<string, { state: string }> }[] }>().rows.find((row) => row.objectKey === objectKey)?.cells.shared?.state;
};

describe('read-your-writes with requests at once', () => {
  it('shows a write to sixteen requests sent together, which share their sync markers', async () => {
    const written = seededStatus('shared', 'ConfigMap', 'shop', 'together', { conditions: stalledConditions });
    await fixture.store.put(written);
    const from = markers.length;
    const states = await Promise.all(Array.from({ length: 16 }, () => stateOf(written.objectKey)));
    expect(states).toEqual(Array.from({ length: 16 }, () => 'Stalled'));
    // One marker per request before; now the first request's, and one for all who came meanwhile.
    expect((await markersSince(from)).length).toBeLessThanOrEqual(4);
  });
});
