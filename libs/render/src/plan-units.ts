import { createHash } from 'node:crypto';
import { RenderFailure } from './render-failure';
import type { RendererRegistry } from './renderer-registry';
import { folderOf, isUnder } from './repo-path';
import type { RepoView } from './repo-view';
import { unitConfigFile } from './unit-config';

/** PlannedUnit is one render unit at a revision: its folder, renderer and every folder it reads. */
export interface PlannedUnit {
  folder: string;
  renderer: string;
  marker: string;
  /** Folders read besides its own (bases, components, values files elsewhere), repository paths. */
  inputs: readonly string[];
  /** Changes exactly when a file in the unit's folder or an input folder changes. */
  digest: string;
  /** Set when the unit's inputs cannot be rendered (a remote base, a path out of the repository). */
  failure?: RenderFailure;
}

/** UnitPlan is every unit of a source at a revision, and the folders whose files are not plain manifests. */
export interface UnitPlan {
  units: PlannedUnit[];
  /** Unit folders, and folders inside the source path that a unit reads (a shared base). */
  claimed: string[];
}

interface Candidate {
  folder: string;
  renderer: string;
  marker: string;
  inputs: string[];
  /** False for a folder its tool cannot render alone (a kustomize Component). */
  standsAlone: boolean;
  /** Changes exactly when the renderer, marker, failure or a tree of the folder or its inputs does. */
  digest: string;
  failure?: RenderFailure;
}

/**
 * planUnits finds the render units among marker files (kustomization.yaml, Chart.yaml, …) of a
 * source, as `kubectl apply -k`, Flux and Argo CD see them: a kustomization that another one of
 * the source uses is an input, not a unit of its own; a kustomize Component is never one; a chart
 * inside another chart (its `charts/`) belongs to that chart; and a folder under a unit belongs to
 * that unit (the kustomization at the source's path composes whatever beneath it it uses).
 */
export async function planUnits(registry: RendererRegistry, view: RepoView, sourcePath: string, markerPaths: Iterable<string>, known: InputsCache = new InputsCache()): Promise<UnitPlan> {
  const candidates = await findCandidates(registry, view, markerPaths, known);
  const used = new Set(candidates.flatMap((candidate) => candidate.inputs));
  const owners = candidates.filter((candidate) => registry.get(candidate.renderer)?.ownsNestedUnits);
  const units: PlannedUnit[] = [];
  // Candidates come sorted by folder, so a unit is kept before any folder under it is looked at.
  for (const candidate of candidates) {
    if (used.has(candidate.folder) || !candidate.standsAlone) continue;
    if (owners.some((owner) => owner.folder !== candidate.folder && isUnder(candidate.folder, owner.folder))) continue;
    if (units.some((unit) => isUnder(candidate.folder, unit.folder))) continue;
    const { standsAlone: _standsAlone, ...unit } = candidate;
    units.push(unit);
  }
  const claimed = new Set<string>();
  for (const candidate of candidates) {
    claimed.add(candidate.folder);
    for (const input of candidate.inputs) if (isUnder(input, sourcePath)) claimed.add(input);
  }
  return { units, claimed: [...claimed].sort() };
}

/**
 * InputsCache remembers each unit's input folders with the trees they were read from. While the
 * unit's folder and every input folder keep their tree, its kustomization and theirs are the
 * same files, so the inputs are too: a push that changes one overlay re-reads only that one.
 */
export class InputsCache {
  private readonly entries = new Map<string, KnownInputs & { trees: string }>();

  constructor(private readonly capacity = 10_000) {}

  /**
   * inputsOf returns the unit's input folders and its digest, made of `key` and the trees of its
   * folder and those; both are kept while those trees stay, so an unchanged unit costs a lookup per folder.
   */
  /**
   * knownInputsOf is inputsOf's answer for a unit whose folders keep their trees, given without
   * waiting when the view has read those trees already; undefined sends the caller to inputsOf.
   */
  knownInputsOf(view: RepoView, key: string, folder: string): KnownInputs | undefined {
    const known = this.entries.get(key);
    if (!known) return undefined;
    const trees: string[] = [];
    for (const input of [folder, ...known.inputs]) {
      const tree = view.knownTreeOf(input);
      if (tree === null) return undefined;
      trees.push(`${input}=${tree ?? '-'}`);
    }
    return trees.join('\0') === known.trees ? known : undefined;
  }

  async inputsOf(view: RepoView, key: string, folder: string, read: () => Promise<{ inputs: string[]; standsAlone: boolean }>): Promise<KnownInputs> {
    const known = this.entries.get(key);
    if (known && (await treesOf(view, [folder, ...known.inputs])) === known.trees) return known;
    const { inputs, standsAlone } = await read();
    const trees = await treesOf(view, [folder, ...inputs]);
    const entry = { trees, inputs, standsAlone, digest: digestOf(`${key}\0\0${trees}`) };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return entry;
  }
}

/** KnownInputs is what planning learnt of one unit folder while its trees stay the same. */
interface KnownInputs {
  inputs: string[];
  standsAlone: boolean;
  digest: string;
}

async function treesOf(view: RepoView, folders: readonly string[]): Promise<string> {
  const trees: string[] = [];
  for (const folder of folders) trees.push(`${folder}=${(await view.treeOf(folder)) ?? '-'}`);
  return trees.join('\0');
}

async function findCandidates(registry: RendererRegistry, view: RepoView, markerPaths: Iterable<string>, known: InputsCache): Promise<Candidate[]> {
  const names = new Map<string, Set<string>>();
  for (const path of markerPaths) {
    const folder = folderOf(path);
    const set = names.get(folder) ?? new Set<string>();
    set.add(path.slice(folder === '.' ? 0 : folder.length + 1));
    names.set(folder, set);
  }
  const candidates: Candidate[] = [];
  for (const [folder, fileNames] of [...names].sort(([a], [b]) => collator.compare(a, b))) {
    const found = registry.unitOf(fileNames);
    if (!found) continue;
    try {
      const key = `${found.renderer.name}\0${found.marker}\0${folder}`;
      const read = async () => ({
        inputs: await found.renderer.inputs(folder, found.marker, view),
        standsAlone: await found.renderer.standsAlone?.(folder, found.marker, view) ?? true,
      });
      const { inputs, standsAlone, digest } = known.knownInputsOf(view, key, folder) ?? await known.inputsOf(view, key, folder, read);
      candidates.push({ folder, renderer: found.renderer.name, marker: found.marker, inputs, standsAlone, digest });
    } catch (error) {
      if (!(error instanceof RenderFailure)) throw error;
      const digest = digestOf(`${found.renderer.name}\0${found.marker}\0${folder}\0${error.message}\0${await treesOf(view, [folder])}`);
      candidates.push({ folder, renderer: found.renderer.name, marker: found.marker, inputs: [], standsAlone: true, digest, failure: error });
    }
  }
  return candidates;
}

function digestOf(material: string): string {
  return createHash('sha256').update(material).digest('base64url').slice(0, 32);
}

// The order localeCompare gives, without making a collator for every comparison.
const collator = new Intl.Collator();

/** isMarkerOrConfig tells whether a file name can change which units exist or how they render. */
export function isMarkerOrConfig(name: string, markers: ReadonlySet<string>): boolean {
  return markers.has(name) || name === unitConfigFile;
}
