import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncWindowHold } from '@tidemark/placement';
import { ConfigError, loadConfig } from './config';

async function load(windows: string): Promise<ReturnType<typeof loadConfig>> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-windows-'));
  try {
    await writeFile(join(dir, 'tidemark.yaml'), [
      'redis: { url: redis://127.0.0.1:6379 }',
      'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
      'clusters: [{ name: prod-a, kubeconfig: prod.kubeconfig, labels: { tier: prod } }]',
      `syncWindows: ${windows}`,
    ].join('\n'));
    return loadConfig({ TIDEMARK_CONFIG: join(dir, 'tidemark.yaml') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('loadConfig: syncWindows', () => {
  it('compiles the windows once, frozen, and they still answer', async () => {
    const config = await load('[{ name: release, kind: deny, schedule: "0 12 * * *", duration: 1h, timeZone: Europe/Berlin, clusterSelector: { matchLabels: { tier: prod } }, manualSync: true }]');
    expect(Object.isFrozen(config.syncWindows[0])).toBe(true);
    const hold = syncWindowHold(new Date('2026-03-31T10:30:00Z'), config.syncWindows, config.clusters[0]!, 'app');
    expect(hold).toMatchObject({ kind: 'deny', manualSync: true, description: 'deny window "release" until 13:00 Europe/Berlin' });
    expect(config.syncWindowRecheckMs).toBe(300_000);
  });

  const hostile: [string, string, RegExp][] = [
    ['an invalid cron', '[{ kind: deny, schedule: "61 * * * *", duration: 1h }]', /tidemark\.yaml: syncWindows\[0\]\.schedule: "61 \* \* \* \*" is not a valid cron schedule/],
    ['a huge duration', '[{ kind: deny, schedule: "0 12 * * *", duration: 400d }]', /syncWindows\[0\]\.duration: 400d is outside 1m to 31d/],
    ['an unknown zone', '[{ kind: allow, schedule: "0 9 * * *", duration: 8h, timeZone: Moon/Tranquility }]', /syncWindows\[0\]\.timeZone: "Moon\/Tranquility" is not an IANA time zone/],
    ['an unknown kind', '[{ kind: sometimes, schedule: "0 9 * * *", duration: 8h }]', /syncWindows\.0\.kind/],
    ['a field windows do not have', '[{ kind: deny, schedule: "0 9 * * *", duration: 8h, tenantsMayLift: true }]', /syncWindows\.0/],
  ];
  for (const [name, windows, message] of hostile) {
    it(`refuses ${name}, naming the file, window and field`, async () => {
      const loading = load(windows);
      await expect(loading).rejects.toBeInstanceOf(ConfigError);
      await expect(loading).rejects.toThrow(message);
    });
  }
});
