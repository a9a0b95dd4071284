import { createHash } from 'node:crypto';
import type { Ignore } from 'ignore';
import { isUnder, RenderFailure, type ClusterValues, type PlannedUnit, type RemoteBaseFetcher, type RenderObserver, type RepoView, type SopsKeyring, type UnitRenderer } from '@tidemark/render';
import type { PlacementRules } from '@tidemark/placement';
import { messageOf, type ClusterCapabilities } from '@tidemark/contracts';
import type { GitStore } from './git-store';
import type { LoadLimits } from './load-limits';
import type { ManifestEntry } from './load-manifest-file';
import { loadRenderedOutput } from './load-rendered-output';
import { renderWarningsOf } from './unit-warnings';
import type { Manifest } from './manifest';
import type { FileContent, FileUpdate } from './revision-index';
import type { FileDelta } from './tree-diff';

/** UnitRendering is how a source renders its Kustomize, Helm and other units. */
export interface UnitRendering {
  renderer: UnitRenderer;
  /** Clusters a per-cluster unit is rendered for (name, labels, variables). @defaultValue none */
  clusters?: readonly ClusterValues[];
  /** Limits on one unit's rendered output (see loadRenderedOutput). @defaultValue the revision budget, 20,000 documents, a file's node limit per piece */
  outputLimits?: Partial<LoadLimits>;
  /** This source's own sops keys; the renderer is shared, the keys never are. @defaultValue none: encrypted files fail their unit */
  keyring?: SopsKeyring;
  /**
   * Hosts Kustomize remote bases may be fetched from (`host` or `host:port`), the operator's
   * render.remoteBases.hosts; GitSource fetches them with the source's own limits. @defaultValue none: a remote base fails its unit
   */
  remoteBaseHosts?: readonly string[];
  /**
   * What each cluster's discovery says, for units whose renderer reads it (Helm's `.Capabilities`).
   * @defaultValue none: such units render once, with the renderer's defaults
   */
  capabilities?: CapabilitiesSource;
}

/** CapabilitiesSource answers what a cluster's discovery says (libs/cluster's CapabilitiesCache). */
export interface CapabilitiesSource {
  /** of returns a cluster's capabilities; it throws when the cluster has never answered. */
  of(cluster: string): Promise<ClusterCapabilities>;
  /** generation changes whenever any cluster's answer does: units read with an older one render again. */
  readonly generation: number;
}

/** UnitFacts are the capabilities of each cluster a unit renders for, or why they could not be read. */
type UnitFacts = ReadonlyMap<string, ClusterCapabilities | { error: string }>;

/** UnitState is what the index remembers of the units of a revision, to render only what changed. */
export interface UnitState {
  /** Marker files (kustomization.yaml, Chart.yaml, …) inside the source path, by repository path. */
  markers: ReadonlySet<string>;
  /** Folders whose files are inputs of a unit, never plain manifests. */
  claimed: readonly string[];
  units: ReadonlyMap<string, { digest: string; renderer: string; failed: boolean }>;
}

/** TreeChanges are the files that changed in the source path (every file when `complete`), and its ignore rules. */
export interface TreeChanges {
  deltas: readonly FileDelta[];
  complete: boolean;
  rules: Ignore | undefined;
}

/** PlannedUnits are the units of a revision before rendering, with the view they were planned on. */
export interface PlannedUnits {
  view: RepoView;
  units: PlannedUnit[];
  state: Omit<UnitState, 'units'>;
}

/** UnitPlacement is the source's Placement rules at a revision, or why they cannot be read. */
export type UnitPlacement = { rules: PlacementRules } | { error: string };

/** UnitTargets are the clusters a unit is rendered for, with their values; `error` when placement cannot say. */
type UnitTargets = { clusters: ClusterValues[] } | { error: string };

export const emptyUnitState: UnitState = { markers: new Set(), claimed: [], units: new Map() };

/** unitPathOf is the index path of a unit: its folder with a trailing slash, never a file's path. */
export function unitPathOf(folder: string): string {
  return `${folder}/`;
}

/** isUnitPath tells whether an index path is a unit's (see unitPathOf). */
export function isUnitPath(path: string): boolean {
  return path.endsWith('/');
}

/**
 * UnitIndexer keeps the render units of a source in step with its files: it tracks marker files
 * through tree deltas, plans the units at each revision, and renders only the units whose
 * input digest changed. A unit's objects enter the index under its folder, like a file's.
 */
export class UnitIndexer {
  private readonly markerNames: ReadonlySet<string>;

  constructor(private readonly store: GitStore, private readonly rendering: UnitRendering, private readonly outputLimits: LoadLimits, private readonly remoteBases?: RemoteBaseFetcher) {
    this.markerNames = rendering.renderer.registry.markerNames();
  }

  /** plan updates the marker set from the deltas and plans the units of the revision. */
  async plan(revision: string, sourcePath: string, changes: TreeChanges, basis: UnitState): Promise<PlannedUnits> {
    const { deltas, complete, rules } = changes;
    const markers = new Set(complete ? [] : basis.markers);
    for (const delta of deltas) {
      const name = delta.path.slice(delta.path.lastIndexOf('/') + 1);
      if (!this.markerNames.has(name)) continue;
      const repoPath = sourcePath === '.' ? delta.path : `${sourcePath}/${delta.path}`;
      if (delta.after?.type === 'blob' && !rules?.ignores(delta.path)) markers.add(repoPath);
      else markers.delete(repoPath);
    }
    const view = this.rendering.renderer.view(this.readerFor(), revision);
    const plan = await this.rendering.renderer.plan(view, sourcePath, markers);
    return { view, units: plan.units, state: { markers, claimed: plan.claimed } };
  }

  /** updates renders the units whose inputs or cluster values changed and removes the units that are gone. */
  async updates(view: RepoView, units: readonly PlannedUnit[], basis: UnitState, placement: UnitPlacement, observe?: RenderObserver): Promise<{ updates: FileUpdate[]; units: UnitState['units'] }> {
    const updates: FileUpdate[] = [];
    const states = new Map<string, { digest: string; renderer: string; failed: boolean }>();
    const rendered = await Promise.all(units.map(async (unit) => {
      const targets = this.targetsFor(unit.folder, placement);
      const facts = await this.factsFor(unit, targets);
      const digest = targetsDigest(unit.digest, targets, facts);
      const before = basis.units.get(unit.folder);
      if (before && before.digest === digest && !before.failed) return { unit, digest, content: undefined, failed: false };
      const content = await this.render(view, unit, targets, facts, observe);
      return { unit, digest, content, failed: content.problems.length > 0 && content.entries.length === 0 };
    }));
    for (const { unit, digest, content, failed } of rendered) {
      states.set(unit.folder, { digest, renderer: unit.renderer, failed });
      if (content) updates.push({ path: unitPathOf(unit.folder), content });
    }
    for (const folder of basis.units.keys()) {
      if (!states.has(folder)) updates.push({ path: unitPathOf(folder) });
    }
    return { updates, units: states };
  }

  /**
   * targetsFor lists the clusters a unit in `folder` would be rendered for: the clusters its
   * Placement rule selects, each with its own variables overlaid by the rule's.
   */
  private targetsFor(folder: string, placement: UnitPlacement): UnitTargets | undefined {
    const clusters = this.rendering.clusters ?? [];
    if (clusters.length === 0) return undefined;
    if ('error' in placement) return { error: placement.error };
    const byName = new Map(clusters.map((cluster) => [cluster.name, cluster]));
    return {
      clusters: placement.rules.unitTargets(folder, clusters).flatMap(({ name, variables }) => {
        const cluster = byName.get(name);
        return cluster ? [{ ...cluster, variables: { ...cluster.variables, ...variables } }] : [];
      }),
    };
  }

  /** capabilityGeneration is the generation of the clusters' capabilities units are rendered with now. */
  capabilityGeneration(): number | undefined {
    return this.rendering.capabilities?.generation;
  }

  /**
   * factsFor reads the capabilities of each cluster a unit renders for, when its renderer reads
   * them; undefined renders it once, as before (no capabilities, no clusters, or Placement unread).
   */
  private async factsFor(unit: PlannedUnit, targets: UnitTargets | undefined): Promise<UnitFacts | undefined> {
    const source = this.rendering.capabilities;
    if (!source || !targets || 'error' in targets || targets.clusters.length === 0 || !this.rendering.renderer.readsCapabilities(unit)) return undefined;
    const entries = await Promise.all(targets.clusters.map(async ({ name }): Promise<[string, ClusterCapabilities | { error: string }]> => {
      try {
        return [name, await source.of(name)];
      } catch (error) {
        return [name, { error: messageOf(error) }];
      }
    }));
    return new Map(entries);
  }

  /** isClaimed tells whether a repository path lies in a unit's folder or input folder. */
  static isClaimed(repoPath: string, claimed: readonly string[]): boolean {
    return claimed.some((folder) => isUnder(repoPath, folder));
  }

  private async render(view: RepoView, unit: PlannedUnit, targets: UnitTargets | undefined, facts: UnitFacts | undefined, observe: RenderObserver | undefined): Promise<FileContent> {
    const path = unitPathOf(unit.folder);
    const provenance = { renderer: unit.renderer, folder: unit.folder };
    try {
      const { renderer } = this.rendering;
      const config = await renderer.configOf(view, unit.folder);
      const perCluster = config.perClusterNeeded && targets !== undefined;
      if (!perCluster && !facts) {
        const { text, warnings, decrypted } = await renderer.render(view, this.readerFor(), unit, this.renderOptions(observe));
        const parsed = this.parse(text, unit);
        return { path, blobOid: unit.digest, unit: { ...provenance, ...(decrypted ? { decrypted } : {}) }, ...parsed, ...renderWarningsOf(unit.renderer, warnings, parsed.entries) };
      }
      if (!targets || 'error' in targets) throw new RenderFailure('RenderConfigInvalid', `${unit.folder} is rendered per cluster, and the source's Placement rules cannot be read: ${targets?.error ?? 'no clusters'}`);
      // A unit that only reads capabilities gets no cluster values: clusters that answer alike share one render.
      const variants = await Promise.all(targets.clusters.map(async (cluster) => {
        const capabilities = capabilitiesFor(facts, cluster.name, unit);
        const options = { ...(perCluster ? { cluster } : {}), ...(capabilities ? { capabilities } : {}), ...this.renderOptions(observe) };
        return { cluster: cluster.name, ...(await renderer.render(view, this.readerFor(), unit, options)) };
      }));
      const valuesByCluster = perCluster ? new Map(targets.clusters.map((cluster) => [cluster.name, flattenClusterValues(cluster)])) : undefined;
      const merged = this.mergeVariants(variants, unit);
      const decrypted = variants.some((variant) => variant.decrypted);
      return { path, blobOid: unit.digest, unit: { ...provenance, ...(valuesByCluster ? { valuesByCluster } : {}), ...(decrypted ? { decrypted } : {}) }, ...merged, ...renderWarningsOf(unit.renderer, variants.flatMap((variant) => variant.warnings), merged.entries) };
    } catch (error) {
      if (!(error instanceof RenderFailure)) throw error;
      return { path, blobOid: unit.digest, unit: provenance, entries: [], problems: [{ code: error.code, reason: error.message, ...(error.line === undefined ? {} : { line: error.line }) }] };
    }
  }

  private parse(text: string, unit: PlannedUnit): Pick<FileContent, 'entries' | 'problems'> {
    const parsed = loadRenderedOutput(new TextEncoder().encode(text), this.outputLimits);
    const problems = parsed.problems.map((problem) => ({ ...problem, reason: `${unit.renderer} output: ${problem.reason}` }));
    // Lines of the rendered stream mean nothing to a user: the unit's folder is the place.
    return { entries: parsed.entries.map((entry) => ({ ...entry, line: 0 })), problems };
  }

  /**
   * mergeVariants joins the renders of a per-cluster unit: each object is listed once, with its
   * manifest per cluster; a cluster whose render lacks an object does not get it.
   */
  private mergeVariants(variants: ReadonlyArray<{ cluster: string; text: string }>, unit: PlannedUnit): Pick<FileContent, 'entries' | 'problems'> {
    const byKey = new Map<string, ManifestEntry & { variants: Map<string, Manifest> }>();
    const problems: FileContent['problems'][number][] = [];
    for (const { cluster, text } of variants) {
      const parsed = this.parse(text, unit);
      problems.push(...parsed.problems.map((problem) => ({ ...problem, reason: `for cluster ${cluster}: ${problem.reason}` })));
      for (const entry of parsed.entries) {
        const known = byKey.get(entry.objectKey) ?? { ...entry, variants: new Map<string, Manifest>() };
        known.variants.set(cluster, entry.manifest);
        known.fingerprint = createHash('sha256').update(known.fingerprint).update(cluster).update(entry.fingerprint).digest('base64url').slice(0, 22);
        byKey.set(entry.objectKey, known);
      }
    }
    return { entries: [...byKey.values()], problems };
  }

  /** renderOptions are this source's own: its sops keys and its remote bases' fetcher; and the poll's observer of the tool's runs. */
  private renderOptions(observe: RenderObserver | undefined): { keyring?: SopsKeyring; remoteBases?: RemoteBaseFetcher; observe?: RenderObserver } {
    return { ...keyringOf(this.rendering), ...(this.remoteBases ? { remoteBases: this.remoteBases } : {}), ...(observe ? { observe } : {}) };
  }

  private readerFor(): GitStore {
    return this.store;
  }
}

function keyringOf(rendering: UnitRendering): { keyring?: SopsKeyring } {
  return rendering.keyring ? { keyring: rendering.keyring } : {};
}

/** targetsDigest is a unit's state digest: its inputs, and the clusters, values and capabilities it is rendered with. */
function targetsDigest(digest: string, targets: UnitTargets | undefined, facts: UnitFacts | undefined): string {
  if (!targets) return digest;
  const hash = createHash('sha256').update(digest).update(JSON.stringify(targets));
  if (facts) hash.update(JSON.stringify([...facts]));
  return hash.digest('base64url');
}

/** capabilitiesFor is a cluster's capabilities for a unit; a cluster never read fails the unit, naming the cluster. */
function capabilitiesFor(facts: UnitFacts | undefined, cluster: string, unit: PlannedUnit): ClusterCapabilities | undefined {
  const found = facts?.get(cluster);
  if (!found || !('error' in found)) return found;
  throw new RenderFailure('RenderFailed', `${unit.folder}: ${unit.renderer} renders for each cluster's API versions, and ${found.error}; the unit renders again when the cluster answers`);
}

/** flattenClusterValues lists what a cluster hands a unit, by the names `${cluster.…}` uses. */
function flattenClusterValues(values: ClusterValues): Record<string, string> {
  return {
    name: values.name,
    ...Object.fromEntries(Object.entries(values.labels).map(([key, value]) => [`labels.${key}`, value])),
    ...Object.fromEntries(Object.entries(values.variables).map(([key, value]) => [`variables.${key}`, value])),
  };
}
