import { posix } from 'node:path';
import type { RepoEntry, RepoReader } from './repo-reader';
import type { UnitRepo } from './renderer';
import type { RendererRegistry } from './renderer-registry';

/** TreeCache keeps parsed trees by OID across revisions: trees never change, so a hit is always right. */
export class TreeCache {
  private readonly trees = new Map<string, Promise<readonly RepoEntry[]>>();
  // Trees already read, indexed by name: what knownEntryIn answers from without waiting.
  private readonly names = new Map<string, ReadonlyMap<string, RepoEntry>>();

  constructor(private readonly capacity = 20_000) {}

  read(reader: RepoReader, oid: string): Promise<readonly RepoEntry[]> {
    let entries = this.trees.get(oid);
    if (entries) {
      this.trees.delete(oid);
    } else {
      entries = reader.readTree(oid);
      entries.catch(() => this.trees.delete(oid));
    }
    this.trees.set(oid, entries);
    if (this.trees.size > this.capacity) {
      const oldest = this.trees.keys().next().value;
      if (oldest !== undefined) this.trees.delete(oldest);
    }
    return entries;
  }

  /** knownEntryIn is entryIn without waiting: the entry (or undefined) when the tree was indexed already, null when it was not. */
  knownEntryIn(oid: string, name: string): RepoEntry | undefined | null {
    const byName = this.names.get(oid);
    return byName ? byName.get(name) : null;
  }

  /** entryIn finds one name in a tree by OID; each tree is indexed by name once, so a path resolves in a lookup per folder. */
  async entryIn(reader: RepoReader, oid: string, name: string): Promise<RepoEntry | undefined> {
    const known = this.names.get(oid);
    if (known) return known.get(name);
    const entries = await this.read(reader, oid);
    let byName = this.names.get(oid);
    if (!byName) {
      byName = new Map(entries.map((entry) => [entry.path, entry]));
      this.names.set(oid, byName);
      if (this.names.size > this.capacity) {
        const oldest = this.names.keys().next().value;
        if (oldest !== undefined) this.names.delete(oldest);
      }
    }
    return byName.get(name);
  }
}

/** BlobCache keeps file contents by OID up to a total size; a unit's inputs are read again on every render. */
export class BlobCache {
  private readonly blobs = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  async read(reader: RepoReader, oid: string): Promise<Uint8Array> {
    const known = this.blobs.get(oid);
    if (known) return known;
    const blob = await reader.readBlob(oid);
    if (blob.byteLength > this.maxBytes / 16) return blob;
    this.blobs.set(oid, blob);
    this.bytes += blob.byteLength;
    for (const [oldest, value] of this.blobs) {
      if (this.bytes <= this.maxBytes) break;
      this.blobs.delete(oldest);
      this.bytes -= value.byteLength;
    }
    return blob;
  }
}

/**
 * RepoView reads one revision by repository path, resolving each folder's tree once. It is what
 * renderers see while they find a unit's inputs (UnitRepo), and what the digests are made of.
 */
export class RepoView implements UnitRepo {
  private readonly folders = new Map<string, Promise<string | undefined>>();
  private readonly rootTree: { oid?: string | undefined; known: boolean } = { known: false };

  constructor(
    private readonly reader: RepoReader,
    readonly revision: string,
    private readonly trees: TreeCache,
    private readonly registry: RendererRegistry,
    private readonly blobs: BlobCache = new BlobCache(),
  ) {}

  /** entriesOfTree reads a tree by OID through the cache. */
  entriesOfTree(oid: string): Promise<readonly RepoEntry[]> {
    return this.trees.read(this.reader, oid);
  }

  /** readBlob reads a file's bytes by OID through the cache. */
  readBlob(oid: string): Promise<Uint8Array> {
    return this.blobs.read(this.reader, oid);
  }

  /** treeOf returns a folder's tree OID at this revision, or undefined when there is no such folder. */
  treeOf(folder: string): Promise<string | undefined> {
    let tree = this.folders.get(folder);
    if (!tree) {
      tree = folder === '.' ? this.rootTreeAt() : this.childTree(folder);
      this.folders.set(folder, tree);
    }
    return tree;
  }

  /**
   * knownTreeOf is treeOf without waiting: the folder's tree (or undefined when there is no such
   * folder) when the root and every tree on the way were read already at this revision, null
   * otherwise. Planning answers an unchanged unit with it, in no await at all.
   */
  knownTreeOf(folder: string): string | undefined | null {
    if (folder === '.') return this.rootTree.known ? this.rootTree.oid : null;
    const slash = folder.lastIndexOf('/');
    const parent = this.knownTreeOf(slash < 0 ? '.' : folder.slice(0, slash));
    if (!parent) return parent;
    const entry = this.trees.knownEntryIn(parent, folder.slice(slash + 1));
    if (entry === null) return null;
    return entry?.type === 'tree' ? entry.oid : undefined;
  }

  private async rootTreeAt(): Promise<string | undefined> {
    const oid = await this.reader.treeAt(this.revision, '.');
    this.rootTree.oid = oid;
    this.rootTree.known = true;
    return oid;
  }

  private async childTree(folder: string): Promise<string | undefined> {
    const entry = await this.entry(folder);
    return entry?.type === 'tree' ? entry.oid : undefined;
  }

  /** entry returns the tree entry of a path, or undefined. */
  async entry(path: string): Promise<RepoEntry | undefined> {
    const parent = posix.dirname(path);
    const tree = await this.treeOf(parent === '' ? '.' : parent);
    if (!tree) return undefined;
    return this.trees.entryIn(this.reader, tree, posix.basename(path));
  }

  async entries(folder: string): Promise<readonly RepoEntry[]> {
    const tree = await this.treeOf(folder);
    return tree ? this.trees.read(this.reader, tree) : [];
  }

  async readText(path: string): Promise<string | undefined> {
    const entry = await this.entry(path);
    if (!entry || entry.type !== 'blob') return undefined;
    return new TextDecoder().decode(await this.readBlob(entry.oid));
  }

  async isFolder(path: string): Promise<boolean> {
    return (await this.treeOf(path)) !== undefined;
  }

  async list(folder: string): Promise<string[]> {
    return (await this.entries(folder)).map((entry) => entry.path);
  }

  async markerIn(folder: string, renderer: string): Promise<string | undefined> {
    const markers = this.registry.get(renderer)?.markers ?? [];
    const names = new Set((await this.entries(folder)).filter((entry) => entry.type === 'blob').map((entry) => entry.path));
    return markers.find((marker) => names.has(marker));
  }
}
