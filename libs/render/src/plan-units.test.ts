import { describe, expect, it } from 'vitest';
import { kustomizeRenderer } from './kustomize/kustomize-renderer';
import { InputsCache, planUnits } from './plan-units';
import type { RepoEntry, RepoReader } from './repo-reader';
import { RendererRegistry } from './renderer-registry';
import { BlobCache, RepoView, TreeCache } from './repo-view';

/** MemoryRepo is a Git object store in memory: trees and blobs by their content (as Git names them), commits by name. */
class MemoryRepo implements RepoReader {
  private readonly objects = new Map<string, readonly RepoEntry[] | string>();
  private readonly commits = new Map<string, string>();

  tree(entries: Record<string, string>): string {
    const oid = `tree-${JSON.stringify(entries)}`;
    this.objects.set(oid, Object.entries(entries).map(([path, child]) => ({
      path, oid: child, mode: child.startsWith('tree-') ? '040000' : '100644', type: child.startsWith('tree-') ? 'tree' as const : 'blob' as const,
    })));
    return oid;
  }

  blob(text: string): string {
    const oid = `blob-${text}`;
    this.objects.set(oid, text);
    return oid;
  }

  commit(name: string, root: string): string {
    this.commits.set(name, root);
    return name;
  }

  async treeAt(revision: string, folder: string): Promise<string | undefined> {
    if (folder !== '.') throw new Error('only the root is asked for');
    return this.commits.get(revision);
  }

  async readTree(oid: string): Promise<readonly RepoEntry[]> {
    const entries = this.objects.get(oid);
    if (typeof entries !== 'object') throw new Error(`no tree ${oid}`);
    return entries;
  }

  async readBlob(oid: string): Promise<Uint8Array> {
    const text = this.objects.get(oid);
    if (typeof text !== 'string') throw new Error(`no blob ${oid}`);
    return new TextEncoder().encode(text);
  }
}

const registry = new RendererRegistry([kustomizeRenderer]);
const overlays = ['apps/api', 'apps/db', 'apps/web'];
const markers = overlays.map((folder) => `${folder}/kustomization.yaml`);

/** revision commits three overlays of one base; `web` and `base` are the kustomization texts that change. */
function revision(repo: MemoryRepo, name: string, texts: { web: string; base: string }): string {
  const overlay = (text: string) => repo.tree({ 'kustomization.yaml': repo.blob(text) });
  const shared = 'resources: [../../base]\n';
  const apps = repo.tree({ api: overlay(shared), db: overlay(shared), web: overlay(texts.web) });
  return repo.commit(name, repo.tree({ apps, base: repo.tree({ 'kustomization.yaml': repo.blob(texts.base) }) }));
}

describe('planUnits across revisions', () => {
  it('changes the digest of every overlay of a changed base, and only of a changed overlay', async () => {
    const repo = new MemoryRepo();
    const trees = new TreeCache();
    const inputs = new InputsCache();
    const plan = async (commit: string) => {
      const view = new RepoView(repo, commit, trees, registry, new BlobCache());
      const { units } = await planUnits(registry, view, '.', markers, inputs);
      return new Map(units.map((unit) => [unit.folder, unit.digest]));
    };
    const first = await plan(revision(repo, 'one', { web: 'resources: [../../base]\n', base: 'resources: []\n' }));
    expect([...first.keys()]).toEqual(overlays);
    // The unit folders keep their trees; only the base changed: every overlay renders again.
    const second = await plan(revision(repo, 'two', { web: 'resources: [../../base]\n', base: 'resources: []\nnamePrefix: b-\n' }));
    for (const folder of overlays) expect(second.get(folder), folder).not.toBe(first.get(folder));
    const third = await plan(revision(repo, 'three', { web: 'resources: [../../base]\nnamePrefix: w-\n', base: 'resources: []\nnamePrefix: b-\n' }));
    expect(third.get('apps/api')).toBe(second.get('apps/api'));
    expect(third.get('apps/db')).toBe(second.get('apps/db'));
    expect(third.get('apps/web')).not.toBe(second.get('apps/web'));
    // A fresh cache agrees with the one that answered without waiting.
    const fresh = await planUnits(registry, new RepoView(repo, 'three', new TreeCache(), registry), '.', markers, new InputsCache());
    expect(new Map(fresh.units.map((unit) => [unit.folder, unit.digest]))).toEqual(third);
  });
});

describe('RepoView.knownTreeOf', () => {
  it('answers without waiting once the trees on the way were read, and null before', async () => {
    const repo = new MemoryRepo();
    const commit = revision(repo, 'one', { web: 'resources: []\n', base: 'resources: []\nnamePrefix: b-\n' });
    const view = new RepoView(repo, commit, new TreeCache(), registry);
    expect(view.knownTreeOf('apps/web')).toBeNull();
    const web = await view.treeOf('apps/web');
    expect(web).toMatch(/^tree-/);
    expect(view.knownTreeOf('apps/web')).toBe(web);
    expect(view.knownTreeOf('apps/db')).toBe(await view.treeOf('apps/db'));
    expect(view.knownTreeOf('apps/missing')).toBeUndefined();
    expect(view.knownTreeOf('apps/web/kustomization.yaml')).toBeNull();
    expect(await view.treeOf('apps/web/kustomization.yaml')).toBeUndefined();
    expect(view.knownTreeOf('apps/web/kustomization.yaml')).toBeUndefined();
    expect(view.knownTreeOf('base')).toBe(await view.treeOf('base'));
    // The base's own tree was never read: what lies inside it is not known yet.
    expect(view.knownTreeOf('base/inner')).toBeNull();
  });
});

describe('planUnits sees units as kustomize and the anchors do', () => {
  // The shape of Online Boutique's kustomize/: a root kustomization composing a base, components
  // the README asks to enable by editing the root, and a tests/ folder nothing composes.
  function boutique(repo: MemoryRepo): string {
    const file = (text: string) => repo.tree({ 'kustomization.yaml': repo.blob(text) });
    const component = 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches: []\n';
    const components = repo.tree({ alloydb: file(component), 'network-policies': file(`kind: "Component" # enabled below\n`), spare: file(component) });
    const kustomize = repo.tree({
      'kustomization.yaml': repo.blob('resources: [base]\ncomponents:\n- components/network-policies\n# - components/alloydb\n'),
      base: file('resources: []\n'),
      components,
      tests: repo.tree({ 'load-test': file('resources: [../../base]\n') }),
    });
    return repo.commit('boutique', repo.tree({ kustomize, other: file('resources: []\n') }));
  }
  const boutiqueMarkers = ['kustomize', 'kustomize/base', 'kustomize/components/alloydb', 'kustomize/components/network-policies', 'kustomize/components/spare', 'kustomize/tests/load-test', 'other']
    .map((folder) => `${folder}/kustomization.yaml`);

  it('keeps the kustomization at the path as the one unit: no Component, nothing beneath it', async () => {
    const repo = new MemoryRepo();
    const view = new RepoView(repo, boutique(repo), new TreeCache(), registry);
    const plan = await planUnits(registry, view, '.', boutiqueMarkers, new InputsCache());
    expect(plan.units.map((unit) => unit.folder)).toEqual(['kustomize', 'other']);
    expect(plan.units.every((unit) => unit.failure === undefined)).toBe(true);
    // Every folder beneath the unit is claimed, so none of its files is applied as a plain manifest.
    expect(plan.claimed).toContain('kustomize');
  });

  it('never makes a Component a unit, even with no kustomization above it', async () => {
    const repo = new MemoryRepo();
    const view = new RepoView(repo, boutique(repo), new TreeCache(), registry);
    const plan = await planUnits(registry, view, 'kustomize/components', ['kustomize/components/alloydb/kustomization.yaml', 'kustomize/components/spare/kustomization.yaml'], new InputsCache());
    expect(plan.units).toEqual([]);
  });
});
