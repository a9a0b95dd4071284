// The dashboard's /metrics on the rig's Redis: the status-store gauges count the records by Ready
// and their drift items, and follow a write (the tally reads what changed, not every record).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seededStatus, stalledConditions, startDashboardFixture, type DashboardFixture } from './dashboard-fixture';

let fixture: DashboardFixture;
const drift = [{ path: '/spec/replicas', desired: 2, live: 5, manager: 'kubectl-edit', detectedAt: new Date().toISOString() }];

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'), { clusters: ['edge'] });
  for (let index = 0; index < 10; index += 1) {
    await fixture.store.put(seededStatus('edge', 'ConfigMap', 'shop', `cm-${index}`, index === 3 ? { conditions: stalledConditions } : index === 4 ? { drift } : {}));
  }
});
afterAll(async () => fixture?.stop());

const scrape = async () => {
  const response = await fixture.app.inject({ url: '/metrics' });
  expect(response.statusCode).toBe(200);
  return response.body;
};

describe('dashboard /metrics', () => {
  it('counts the records by Ready and their drift items, and follows a write', async () => {
    const text = await scrape();
    expect(text).toContain('tidemark_objects{cluster="edge",ready="true"} 9');
    expect(text).toContain('tidemark_objects{cluster="edge",ready="false"} 1');
    expect(text).toContain('tidemark_drift_items{cluster="edge"} 1');

    await fixture.store.put(seededStatus('edge', 'ConfigMap', 'shop', 'cm-5', { conditions: stalledConditions, drift: [...drift, ...drift] }));
    // The write's announcement reaches the tally's subscriber soon after: scraped again until it has.
    await expect.poll(scrape, { timeout: 20_000 }).toContain('tidemark_objects{cluster="edge",ready="false"} 2');
    expect(await scrape()).toContain('tidemark_drift_items{cluster="edge"} 3');
  });
});
