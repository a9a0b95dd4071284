import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { parseSourceObject } from './parse-source-object';

const source = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source',
  metadata: { name: 'app', namespace: 'team-a', generation: 3, ...(annotations ? { annotations } : {}) },
  spec,
});
const base = { url: 'https://git.example.com/team-a/app.git', ref: { branch: 'main' }, intervalMs: 60_000 };

describe('parseSourceObject', () => {
  it('goes through parseSourceSpec: defaults, a normalised path, and the name <namespace>.<name>', () => {
    const declaration = parseSourceObject(source({ ...base, path: './deploy/', secretRef: { name: 'git' } }));
    expect(declaration.name).toBe('team-a.app');
    expect(declaration.spec).toMatchObject({ name: 'team-a.app', path: 'deploy', jitter: 0.1, ignoreFile: '.tidemarkignore' });
    expect(declaration.secret).toEqual({ namespace: 'team-a', name: 'git' });
    expect(declaration.prune).toBe(true);
    expect(declaration.object.generation).toBe(3);
  });

  it('names the object and field of a mistake', () => {
    expect(() => parseSourceObject(source({ ...base, url: 'http://git.example.com/x.git' }))).toThrow('Source team-a/app spec.url: must use https');
    expect(() => parseSourceObject(source({ ...base, ref: { branch: 'main', tag: 'v1' } }))).toThrow(/Source team-a\/app spec\.ref/);
    expect(() => parseSourceObject(source({ ...base, path: '../other' }))).toThrow('Source team-a/app spec.path: must stay inside the repository');
  });

  it('refuses a Secret or ServiceAccount in another namespace unless the operator allows it', () => {
    const foreign = source({ ...base, secretRef: { name: 'git', namespace: 'kube-system' } });
    expect(() => parseSourceObject(foreign)).toThrow('Source team-a/app spec.secretRef.namespace: a Source in team-a may use Secrets in team-a only');
    expect(parseSourceObject(foreign, { allowCrossNamespaceRefs: true }).secret).toEqual({ namespace: 'kube-system', name: 'git' });
    const impersonating = source({ ...base, serviceAccount: { namespace: 'kube-system', name: 'admin' } });
    expect(() => parseSourceObject(impersonating)).toThrow('spec.serviceAccount.namespace: a Source in team-a may act as a ServiceAccount in team-a only');
  });

  it('refuses a cross-namespace Secret outside the served namespaces, where the reconciler may not read Secrets', () => {
    const foreign = source({ ...base, secretRef: { name: 'git', namespace: 'shared' } });
    const rules = { allowCrossNamespaceRefs: true, servedNamespaces: ['team-a', 'team-b'] };
    expect(() => parseSourceObject(foreign, rules)).toThrow('Source team-a/app spec.secretRef.namespace: Secrets in shared cannot be read; Tidemark serves Sources and reads Secrets only in sourceObjects.namespaces (team-a, team-b)');
    expect(parseSourceObject(foreign, { ...rules, servedNamespaces: ['team-a', 'shared'] }).secret).toEqual({ namespace: 'shared', name: 'git' });
    expect(parseSourceObject(foreign, { ...rules, servedNamespaces: 'all' }).secret).toEqual({ namespace: 'shared', name: 'git' });
  });

  it('gives a Source without serviceAccount the default one of its own namespace', () => {
    expect(parseSourceObject(source(base), { defaultServiceAccountName: 'tidemark' }).spec.serviceAccount).toEqual({ namespace: 'team-a', name: 'tidemark' });
    expect(parseSourceObject(source(base)).spec.serviceAccount).toBeUndefined();
  });

  it('reads suspend and the orphaning annotation', () => {
    const declaration = parseSourceObject(source({ ...base, suspend: true }, { 'tidemark.dev/prune': 'false' }));
    expect(declaration.suspended).toBe(true);
    expect(declaration.prune).toBe(false);
  });
});
