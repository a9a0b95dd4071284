import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';
import { parseSourceObject } from '@tidemark/source-objects';
import { sourceOwner, sourceTenancy } from './source-tenancy';

/** tenancyOf builds the lookup over the config's sources, as the reconciler's one map of sources starts. */
async function tenancyOf(lines: string[]) {
  const config = await configOf(lines);
  const sources = new Map(config.sources.map((spec) => [spec.name, { spec }]));
  return { sources, tenancy: sourceTenancy(sources, config) };
}

async function configOf(lines: string[]) {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-tenancy-'));
  try {
    await writeFile(join(dir, 'tidemark.yaml'), lines.join('\n'));
    return loadConfig({ TIDEMARK_CONFIG: join(dir, 'tidemark.yaml') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const base = [
  'redis: { url: redis://127.0.0.1:6379 }',
  'clusters: [{ name: dev, kubeconfig: dev.kubeconfig }]',
  'sources:',
  '  - { name: team-a, url: "https://git.example.com/a.git", ref: { branch: main }, intervalMs: 60000, serviceAccount: { namespace: team-a, name: deployer }, allow: { namespaces: [team-a] } }',
  '  - { name: legacy, url: "https://git.example.com/l.git", ref: { branch: main }, intervalMs: 60000 }',
];

describe('sourceTenancy', () => {
  it('gives a source its own ServiceAccount and allow-list, and one without none when there is no lockdown', async () => {
    const { tenancy } = await tenancyOf(base);
    expect(tenancy('team-a')).toEqual({ serviceAccount: { namespace: 'team-a', name: 'deployer' }, allow: expect.objectContaining({ namespaces: ['team-a'] }) });
    expect(tenancy('legacy')).toEqual({});
    expect(tenancy('unknown')).toBeUndefined();
  });

  it('under defaultServiceAccount lockdown, a source without its own, or an unknown one, acts as the default', async () => {
    const { tenancy } = await tenancyOf([...base, 'defaultServiceAccount: { namespace: tidemark-tenants, name: nobody }']);
    expect(tenancy('legacy')).toEqual({ serviceAccount: { namespace: 'tidemark-tenants', name: 'nobody' } });
    expect(tenancy('unknown')).toEqual({ serviceAccount: { namespace: 'tidemark-tenants', name: 'nobody' } });
    expect(tenancy('team-a')?.serviceAccount).toEqual({ namespace: 'team-a', name: 'deployer' });
  });

  it('honours a source added at runtime (a Source object) with its own ServiceAccount and allow-list', async () => {
    const { sources, tenancy } = await tenancyOf([...base, 'defaultServiceAccount: { namespace: tidemark-tenants, name: nobody }']);
    const sourceObject = (name: string, spec: Record<string, unknown>) => parseSourceObject({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source', metadata: { name, namespace: 'team-b' }, spec: { url: 'https://git.example.com/b.git', ref: { branch: 'main' }, intervalMs: 60000, ...spec } });
    const apps = sourceObject('apps', { serviceAccount: { namespace: 'team-b', name: 'deployer' }, allow: { namespaces: ['team-b'] } });
    sources.set(apps.name, apps);
    expect(tenancy('team-b.apps')).toEqual({ serviceAccount: { namespace: 'team-b', name: 'deployer' }, allow: expect.objectContaining({ namespaces: ['team-b'] }) });
  });

  it('never lets a Source object act as the reconciler or the lockdown identity: one without an identity, or unknown, is refused', async () => {
    for (const lines of [base, [...base, 'defaultServiceAccount: { namespace: tidemark-tenants, name: nobody }']]) {
      const { sources, tenancy } = await tenancyOf(lines);
      expect(tenancy('team-b.apps.v2')).toEqual({ refused: expect.stringMatching(/^Source team-b\/apps\.v2 is not known to this process, and a Source never acts as the reconciler/) });
      // Parsed Sources always have one; a spec without (built by hand) is still refused.
      sources.set('team-b.open', { spec: { ...sources.get('legacy')!.spec, name: 'team-b.open' } });
      expect(tenancy('team-b.open')).toEqual({ refused: expect.stringMatching(/^Source team-b\/open names no spec\.serviceAccount, .*set spec\.serviceAccount to a ServiceAccount of team-b/) });
    }
  });

  it('reads a source that asks for SSH signatures only, and refuses an unreadable SSH key naming the field', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINQlpISOoceckhRteQxC+CaLz+aRQnsDX/9NxagDnmEN team';
    const signed = base.map((line) => line.replace('intervalMs: 60000 }', `intervalMs: 60000, verify: { sshKeys: ["${key}"] } }`));
    await expect(configOf(signed)).resolves.toBeDefined();
    const broken = base.map((line) => line.replace('intervalMs: 60000 }', 'intervalMs: 60000, verify: { sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 team"] } }'));
    await expect(configOf(broken)).rejects.toThrow(/sources\[1\]\.verify\.sshKeys\[0\]: its key cannot be read/);
  });

  it('refuses a malformed lockdown ServiceAccount, naming the field', async () => {
    await expect(configOf([...base, 'defaultServiceAccount: { namespace: Bad, name: nobody }'])).rejects.toThrow(/defaultServiceAccount\.namespace/);
  });

  it('calls a Source object a tenant\'s and a config-file source the operator\'s (who may declare an inCluster Cluster)', () => {
    expect(sourceOwner('team-b.apps')).toBe('tenant');
    expect(sourceOwner('team-b.apps.v2')).toBe('tenant');
    expect(sourceOwner('legacy')).toBe('operator');
  });
});
