import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { parseSourceObject } from './parse-source-object';

const source = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubernetesManifest => ({
  apiVersion: 'tidemark.dev/v1alpha1', kind: 'Source',
  metadata: { name: 'app', namespace: 'team-a', generation: 3, ...(annotations ? { annotations } : {}) },
  spec,
});
const identity = { serviceAccount: { namespace: 'team-a', name: 'deployer' } };
const anonymous = { url: 'https://git.example.com/team-a/app.git', ref: { branch: 'main' }, intervalMs: 60_000 };
const base = { ...anonymous, ...identity };

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

  it('reads spec.decryption.secretRef in the Source\'s own namespace only, even where cross-namespace references are allowed', () => {
    expect(parseSourceObject(source({ ...base, decryption: { secretRef: { name: 'sops-keys' } } }), { allowCrossNamespaceRefs: true }).decryption).toEqual({ namespace: 'team-a', name: 'sops-keys' });
    expect(() => parseSourceObject(source({ ...base, decryption: { secretRef: { name: 'sops-keys', namespace: 'team-b' } } }), { allowCrossNamespaceRefs: true }))
      .toThrow('Source team-a/app spec.decryption.secretRef');
  });

  it('refuses a cross-namespace Secret outside the served namespaces, where the reconciler may not read Secrets', () => {
    const foreign = source({ ...base, secretRef: { name: 'git', namespace: 'shared' } });
    const rules = { allowCrossNamespaceRefs: true, servedNamespaces: ['team-a', 'team-b'] };
    expect(() => parseSourceObject(foreign, rules)).toThrow('Source team-a/app spec.secretRef.namespace: Secrets in shared cannot be read; Tidemark serves Sources and reads Secrets only in sourceObjects.namespaces (team-a, team-b)');
    expect(parseSourceObject(foreign, { ...rules, servedNamespaces: ['team-a', 'shared'] }).secret).toEqual({ namespace: 'shared', name: 'git' });
    expect(parseSourceObject(foreign, { ...rules, servedNamespaces: 'all' }).secret).toEqual({ namespace: 'shared', name: 'git' });
  });

  it('gives a Source without serviceAccount the default one of its own namespace', () => {
    expect(parseSourceObject(source(anonymous), { defaultServiceAccountName: 'tidemark' }).spec.serviceAccount).toEqual({ namespace: 'team-a', name: 'tidemark' });
  });

  it('fails closed: a Source with no identity and no operator default is refused (IdentityRequired), never run as the reconciler', () => {
    const refused = (() => {
      try {
        return parseSourceObject(source(anonymous));
      } catch (error) {
        return error as { code: string; message: string };
      }
    })();
    expect(refused).toMatchObject({ code: 'IdentityRequired' });
    expect((refused as { message: string }).message).toMatch(/^Source team-a\/app spec\.serviceAccount: required; .*never as the reconciler\. Set spec\.serviceAccount to a ServiceAccount in team-a .*sourceObjects\.defaultServiceAccountName/);
  });

  it('keeps the ServiceAccounts its Placement rules may act as (allow.serviceAccounts) in its own namespace unless the operator allows others', () => {
    const borrowing = source({ ...base, allow: { namespaces: ['team-a', 'team-b'], serviceAccounts: ['team-a/ci', 'team-b/*'] } });
    expect(() => parseSourceObject(borrowing)).toThrow('Source team-a/app spec.allow.serviceAccounts[1]: a Source in team-a may let Placement rules act as ServiceAccounts in team-a only');
    const glob = source({ ...base, allow: { namespaces: ['team-a'], serviceAccounts: ['team-*/deployer'] } });
    expect(() => parseSourceObject(glob)).toThrow('spec.allow.serviceAccounts[0]: a Source in team-a may let Placement rules act as ServiceAccounts in team-a only');
    expect(parseSourceObject(borrowing, { allowCrossNamespaceRefs: true }).spec.allow?.serviceAccounts).toEqual(['team-a/ci', 'team-b/*']);
  });

  it('narrows its allow-list to the operator\'s ceiling, and gives the ceiling to a Source without one', () => {
    const ceiling = { namespaces: ['team-*'], kinds: ['ConfigMap', 'apps/*'], denyKinds: ['apps/DaemonSet'], clusterKinds: [], clusters: ['*'], createNamespaces: false, serviceAccounts: ['team-a/*'] };
    const wide = source({ ...base, allow: { namespaces: ['*', 'kube-system', 'team-a'], kinds: ['*'], clusterKinds: ['rbac.authorization.k8s.io/ClusterRoleBinding'], createNamespaces: true, serviceAccounts: ['team-a/ci'] } });
    expect(parseSourceObject(wide, { allow: ceiling }).spec.allow).toEqual({
      namespaces: ['team-*', 'team-a'], kinds: ['ConfigMap', 'apps/*'], denyKinds: ['apps/DaemonSet'], clusterKinds: [], clusters: ['*'], createNamespaces: false, serviceAccounts: ['team-a/ci'],
    });
    expect(parseSourceObject(source(base), { allow: ceiling }).spec.allow).toEqual(ceiling);
    // A ceiling naming every team's ServiceAccounts lets a Source's Placement rules name its own team's only.
    const everyTeam = { ...ceiling, serviceAccounts: ['team-*/deployer', 'kube-system/*'] };
    expect(parseSourceObject(source(base), { allow: everyTeam }).spec.allow?.serviceAccounts).toEqual(['team-a/deployer']);
    expect(parseSourceObject(source(base), { allow: everyTeam, allowCrossNamespaceRefs: true }).spec.allow?.serviceAccounts).toEqual(['team-*/deployer', 'kube-system/*']);
    expect(parseSourceObject(source(base)).spec.allow).toBeUndefined();
  });

  it('reads suspend and the orphaning annotation', () => {
    const declaration = parseSourceObject(source({ ...base, suspend: true }, { 'tidemark.dev/prune': 'false' }));
    expect(declaration.suspended).toBe(true);
    expect(declaration.prune).toBe(false);
  });
});
