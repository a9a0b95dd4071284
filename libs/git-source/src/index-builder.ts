import ignore, { type Ignore } from 'ignore';
import type { RenderObserver } from '@tidemark/render';
import type { BoundedCache } from './bounded-cache';
import type { GitStore } from './git-store';
import type { LoadLimits } from './load-limits';
import { loadManifestFile, type ManifestFile } from './load-manifest-file';
import { RevisionIndex, type FileContent, type FileUpdate } from './revision-index';
import type { SourceError, SourceWarning } from './source-error';
import { diffTrees, type FileDelta, type TreeFile } from './tree-diff';
import { emptyUnitState, isUnitPath, UnitIndexer, type PlannedUnits, type UnitState } from './unit-index';
import { RevisionBudget } from './revision-budget';
import { placementOf } from './unit-placement';
import { ParsePacing } from './parse-pacing';

/** BuiltIndex is the object index of one revision and what it was read from. */
export interface BuiltIndex {
  revision: string;
  /** Tree of the source path; undefined when the path does not exist at this revision. */
  tree?: string;
  /** Blob of the ignore file, which decides which files count. */
  ignoreOid?: string;
  index: RevisionIndex;
  errors: SourceError[];
  /** Parser and renderer warnings at this revision. */
  warnings: SourceWarning[];
  /** The render units of this revision (empty when the source renders none). */
  units: UnitState;
  /** Bytes of each plain manifest file, and their sum: the revision's share of the source's byte budget. */
  fileBytes: ReadonlyMap<string, number>;
  totalBytes: number;
  /** What building this revision cost in rendering: units planned, units rendered, and the time both took. */
  render: RenderFigures;
  /** The generation of the clusters' capabilities its units were rendered with (UnitRendering.capabilities). */
  capabilities?: number;
}

/** RenderFigures say what one revision cost in rendering. */
export interface RenderFigures {
  planned: number;
  rendered: number;
  /** Planning and rendering together. */
  durationMs: number;
  /** Planning alone: finding every unit, its input folders and its digest. */
  planMs: number;
}

export interface IndexBuilderOptions {
  store: GitStore;
  /** Source path inside the repository ('.' for the root). */
  path: string;
  ignoreFile: string;
  limits: LoadLimits;
  /** Parsed blobs by OID, shared across revisions: an unchanged file is never parsed twice. */
  parsedBlobs: BoundedCache<string, ManifestFile>;
  /** Renders Kustomize, Helm and other units; without it every YAML file is a plain manifest. */
  units?: UnitIndexer;
  /** The source's name, for SourceTooLarge. */
  source: string;
  /** Most bytes of manifest files one revision may hold. */
  maxRevisionBytes: number;
}

const manifestFile = /\.(ya?ml|json)$/i;
const symlinkMode = '120000';

/** IndexBuilder derives the index of a revision from the index of an earlier one. */
export class IndexBuilder {
  private readonly ignoreRules = new Map<string, Ignore>();
  private readonly pacing = new ParsePacing();

  constructor(private readonly options: IndexBuilderOptions) {}

  /** isCurrent tells whether an index was rendered with the clusters' capabilities as they are now. */
  isCurrent(built: BuiltIndex): boolean {
    return built.capabilities === this.options.units?.capabilityGeneration();
  }

  /** build derives a revision's index; `observe` wraps each run of a render tool (the poll's trace). */
  async build(revision: string, basis?: BuiltIndex, observe?: RenderObserver): Promise<{ built: BuiltIndex; touched: Set<string> }> {
    const { store, path, ignoreFile } = this.options;
    // Read before rendering: capabilities that change meanwhile make the index stale, not silently current.
    const capabilities = this.options.units?.capabilityGeneration();
    const tree = await store.treeAt(revision, path);
    const ignoreOid = tree ? (await store.readTree(tree)).find((item) => item.path === ignoreFile && item.type === 'blob')?.oid : undefined;
    const rules = await this.rules(ignoreOid);
    const from = basis ?? { index: RevisionIndex.empty(), units: emptyUnitState };
    const changed = await this.deltas(tree, ignoreOid, basis);
    const renderStarted = performance.now();
    const { complete } = changed;
    let { deltas } = changed;
    const planned = await this.options.units?.plan(revision, path, { deltas, complete, rules }, from.units);
    const planMs = performance.now() - renderStarted;
    const claimed = planned?.state.claimed ?? [];
    // Files that enter or leave a unit change kind without changing content: compare every file.
    if (basis && !complete && !sameFolders(claimed, from.units.claimed)) deltas = await this.everyFile(tree, basis);
    const budget = new RevisionBudget(basis, this.options, revision);
    const updates = await this.fileUpdates(deltas, from.index, rules, claimed, budget);
    // Files first: the Placement objects among them say which clusters, with which variables, a unit renders for.
    const files = from.index.update(updates);
    const { units, render, unitUpdates } = await this.renderUnits(planned, from.units, { started: renderStarted, planMs }, files.index, observe);
    const { index, touched } = files.index.update(unitUpdates);
    for (const key of files.touched) touched.add(key);
    const errors = tree ? index.errors() : [pathMissing(path, revision), ...index.errors()];
    const built: BuiltIndex = {
      revision, index, errors, warnings: index.warnings(), units, render, fileBytes: budget.sizes, totalBytes: budget.total, ...(tree ? { tree } : {}), ...(ignoreOid ? { ignoreOid } : {}),
      ...generationOf(capabilities),
    };
    return { built, touched };
  }

  /** renderUnits renders the planned units whose inputs changed, and says what that cost. */
  private async renderUnits(planned: PlannedUnits | undefined, basis: UnitState, clock: { started: number; planMs: number }, files: RevisionIndex, observe: RenderObserver | undefined): Promise<{ units: UnitState; render: RenderFigures; unitUpdates: FileUpdate[] }> {
    if (!planned || !this.options.units) return { units: emptyUnitState, render: { planned: 0, rendered: 0, durationMs: 0, planMs: 0 }, unitUpdates: [] };
    const rendered = await this.options.units.updates(planned.view, planned.units, basis, placementOf(files), observe);
    return {
      units: { ...planned.state, units: rendered.units },
      render: { planned: planned.units.length, rendered: rendered.updates.filter((update) => update.content).length, durationMs: performance.now() - clock.started, planMs: clock.planMs },
      unitUpdates: rendered.updates,
    };
  }

  /**
   * fileUpdates turns file deltas into index updates: plain manifests in, files of a unit's folders
   * out. The revision's byte budget is decided from the files' sizes before any file is parsed, so a
   * refused revision costs no parse: parsing YAML costs several times its size in memory.
   */
  private async fileUpdates(deltas: readonly FileDelta[], index: RevisionIndex, rules: Ignore | undefined, claimed: readonly string[], budget: RevisionBudget): Promise<FileUpdate[]> {
    const { path } = this.options;
    const read: { repoPath: string; file: TreeFile }[] = [];
    const removed: string[] = [];
    for (const delta of deltas) {
      const repoPath = path === '.' ? delta.path : `${path}/${delta.path}`;
      if (delta.after && counts(delta.path, delta.after, rules) && !UnitIndexer.isClaimed(repoPath, claimed)) read.push({ repoPath, file: delta.after });
      else if (index.fileAt(repoPath)) removed.push(repoPath);
    }
    // Removals first: a file renamed in a full revision must not count twice.
    for (const repoPath of removed) budget.remove(repoPath);
    for (const { repoPath, file } of read) budget.set(repoPath, await this.sizeOf(file));
    const updates: FileUpdate[] = removed.map((repoPath) => ({ path: repoPath }));
    for (const { repoPath, file } of read) updates.push({ path: repoPath, content: await this.content(repoPath, file) });
    return updates;
  }

  /** sizeOf is a file's share of the budget: its blob's bytes, read without keeping them (or from the parse cache). */
  private async sizeOf(file: TreeFile): Promise<number> {
    if (file.type === 'commit' || file.mode === symlinkMode) return 0;
    const cached = this.options.parsedBlobs.get(file.oid)?.bytes;
    return cached ?? (await this.options.store.readBlob(file.oid)).byteLength;
  }

  /** deltas returns the changed files, or every file (`complete`) when there is nothing to diff against. */
  private async deltas(tree: string | undefined, ignoreOid: string | undefined, basis: BuiltIndex | undefined): Promise<{ deltas: FileDelta[]; complete: boolean }> {
    const { store } = this.options;
    if (!basis) return { deltas: await diffTrees(store.readTree, undefined, tree), complete: true };
    // A changed ignore file changes which files count, and a basis tree gone from a reset cache
    // cannot be walked: then compare every file with the basis index, not only changed ones.
    const walkable = !basis.tree || (await store.hasObject(basis.tree));
    if (basis.ignoreOid !== ignoreOid || !walkable) return { deltas: await this.everyFile(tree, basis), complete: true };
    return { deltas: await diffTrees(store.readTree, basis.tree, tree), complete: false };
  }

  private async everyFile(tree: string | undefined, basis: BuiltIndex): Promise<FileDelta[]> {
    const deltas = await diffTrees(this.options.store.readTree, undefined, tree);
    const present = new Set(deltas.map((delta) => delta.path));
    const prefix = this.options.path === '.' ? '' : `${this.options.path}/`;
    for (const repoPath of basis.index.paths()) {
      if (isUnitPath(repoPath)) continue;
      const relative = repoPath.slice(prefix.length);
      if (!present.has(relative)) deltas.push({ path: relative });
    }
    return deltas;
  }

  private async content(path: string, file: TreeFile): Promise<FileContent> {
    const refused = (code: 'SymlinkRefused' | 'SubmoduleRefused', reason: string) => ({ path, blobOid: file.oid, entries: [], problems: [{ code, reason }] });
    if (file.type === 'commit') return refused('SubmoduleRefused', 'is a submodule; submodules are refused, not followed');
    if (file.mode === symlinkMode) return refused('SymlinkRefused', 'is a symbolic link; symlinks are refused, not followed');
    const { parsedBlobs, store, limits } = this.options;
    let parsed = parsedBlobs.get(file.oid);
    if (!parsed) {
      parsed = loadManifestFile(await store.readBlob(file.oid), limits);
      parsedBlobs.set(file.oid, parsed);
      await this.pacing.parsed(parsed.bytes ?? 0);
    }
    return { path, blobOid: file.oid, entries: parsed.entries, problems: parsed.problems, ...(parsed.warnings ? { warnings: parsed.warnings } : {}) };
  }

  private async rules(oid: string | undefined): Promise<Ignore | undefined> {
    if (!oid) return undefined;
    let rules = this.ignoreRules.get(oid);
    if (!rules) {
      const text = new TextDecoder().decode(await this.options.store.readBlob(oid));
      rules = ignore().add(text);
      this.ignoreRules.clear();
      this.ignoreRules.set(oid, rules);
    }
    return rules;
  }
}

/** counts tells whether a file takes part: not ignored, and a manifest, a symlink or a submodule (refused later). */
function counts(path: string, file: TreeFile, rules: Ignore | undefined): boolean {
  if (rules?.ignores(path)) return false;
  return file.type === 'commit' || file.mode === symlinkMode || manifestFile.test(path);
}

function sameFolders(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((folder, index) => folder === b[index]);
}

function pathMissing(path: string, revision: string): SourceError {
  return { code: 'PathNotFound', path, message: `${path}: the source path does not exist at revision ${revision}` };
}

/** generationOf is the capabilities field of an index: absent when the source renders nothing per cluster's discovery. */
function generationOf(capabilities: number | undefined): Pick<BuiltIndex, 'capabilities'> {
  return capabilities === undefined ? {} : { capabilities };
}
