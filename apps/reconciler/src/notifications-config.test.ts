import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { SecretText } from '@tidemark/notify';
import { ConfigError, loadConfig } from './config';

const base = 'redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 60000 }]\nclusters: [{ name: dev, inCluster: true }]\n';
const slackUrl = 'https://hooks.slack.example/services/T000/B000/s3cretpath';

async function withConfig(notifications: string, run: (path: string, dir: string) => Promise<void> | void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-notify-config-'));
  try {
    await writeFile(join(dir, 'slack-url'), `${slackUrl}\n`);
    await writeFile(join(dir, 'tidemark.yaml'), `${base}notifications:\n${notifications}`);
    await run(join(dir, 'tidemark.yaml'), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('notifications config', () => {
  it('reads providers and alerts, with credentials from files and the environment, never printable', async () => {
    await withConfig([
      '  providers:',
      '    - { name: chat, type: slack, address: { file: slack-url } }',
      '    - { name: ops, type: webhook, address: { env: OPS_URL }, hmacKey: { env: OPS_KEY }, rateLimit: { max: 5, perMs: 1000 } }',
      '  alerts:',
      '    - { name: prod, providers: [chat, ops], severity: error, clusters: ["prod-*"], kinds: [WebApp], events: [NotReady, Stalled], exclusions: ["^ignore"], summary: Production }',
    ].join('\n'), (path) => {
      const config = loadConfig({ TIDEMARK_CONFIG: path, OPS_URL: 'https://ops.example/hook', OPS_KEY: 'k3y' });
      const [chat, ops] = config.notifications.providers;
      expect((chat?.address as SecretText).reveal()).toBe(slackUrl);
      expect(ops).toMatchObject({ type: 'webhook', timeoutMs: 5000, rateLimit: { max: 5, durationMs: 1000 }, retry: { attempts: 8, baseMs: 1000 } });
      expect((ops?.hmacKey as SecretText).reveal()).toBe('k3y');
      expect(config.notifications.alerts[0]).toMatchObject({ severity: 'error', clusters: ['prod-*'], events: ['NotReady', 'Stalled'], summary: 'Production' });
      expect(config.notifications.alerts[0]?.exclusions?.[0]?.test('ignore me')).toBe(true);
      const printed = `${JSON.stringify(config)} ${inspect(config, { depth: 10 })}`;
      expect(printed).not.toContain('s3cretpath');
      expect(printed).not.toContain('k3y');
    });
  });

  it('names the file and field of each mistake, and never echoes an address', async () => {
    const cases: [string, RegExp][] = [
      ['  providers: [{ name: chat, type: slack, address: { env: BAD_URL } }]\n  alerts: []', /notifications\.providers\[0\]\.address: must use https \(plain http only on a loopback host\) \(the value is not shown\)/],
      ['  providers: [{ name: ops, type: webhook, address: { file: slack-url } }]\n  alerts: []', /notifications\.providers\[0\]\.hmacKey: a webhook provider needs an HMAC key/],
      ['  providers: [{ name: chat, type: slack, address: { file: slack-url } }]\n  alerts: [{ name: a, providers: [pager] }]', /notifications\.alerts\[0\]\.providers\[0\]: no provider is named "pager"/],
      ['  providers: [{ name: chat, type: slack, address: { file: slack-url } }]\n  alerts: [{ name: a, providers: [chat], events: [Exploded] }]', /notifications\.alerts\[0\]\.events\[0\]: "Exploded" is not one of NotReady/],
      ['  providers: [{ name: chat, type: slack, address: { file: slack-url } }]\n  alerts: [{ name: a, providers: [chat], exclusions: ["("] }]', /notifications\.alerts\[0\]\.exclusions\[0\]: is not a regular expression/],
      ['  providers: [{ name: chat, type: slack, address: { file: missing-file } }]\n  alerts: []', /notifications\.providers\[0\]\.address: cannot read file missing-file/],
      ['  providers: [{ name: chat, type: pager, address: { file: slack-url } }]\n  alerts: []', /notifications\.providers\.0\.type|notifications\.providers\[0\]\.type/],
    ];
    for (const [section, message] of cases) {
      await withConfig(section, (path) => {
        let thrown: unknown;
        try {
          loadConfig({ TIDEMARK_CONFIG: path, BAD_URL: 'http://chat.example/s3cretpath' });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ConfigError);
        expect((thrown as Error).message).toContain(path);
        expect((thrown as Error).message).toMatch(message);
        expect((thrown as Error).message).not.toContain('s3cretpath');
      });
    }
  });

  it('takes a Secret reference for an address or key, on the first cluster unless it names another', async () => {
    await withConfig([
      '  providers:',
      '    - { name: ops, type: webhook, address: { secretRef: { namespace: tidemark, name: hooks, key: ops-url } }, hmacKey: { secretRef: { cluster: dev, namespace: tidemark, name: hooks, key: ops-key } } }',
      '  alerts: [{ name: all, providers: [ops] }]',
    ].join('\n'), (path) => {
      const [ops] = loadConfig({ TIDEMARK_CONFIG: path }).notifications.providers;
      expect(ops?.address).toEqual({ secretRef: { cluster: 'dev', namespace: 'tidemark', name: 'hooks', key: 'ops-url' } });
      expect(ops?.hmacKey).toEqual({ secretRef: { cluster: 'dev', namespace: 'tidemark', name: 'hooks', key: 'ops-key' } });
    });
    await withConfig('  providers: [{ name: chat, type: slack, address: { secretRef: { cluster: prod, namespace: t, name: h, key: k } } }]\n  alerts: []', (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: notifications.providers[0].address.secretRef.cluster: no cluster is named "prod"`);
    });
  });

  it('is empty without the section', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-notify-config-'));
    try {
      await writeFile(join(dir, 'tidemark.yaml'), base);
      expect(loadConfig({ TIDEMARK_CONFIG: join(dir, 'tidemark.yaml') }).notifications).toMatchObject({ providers: [], alerts: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
