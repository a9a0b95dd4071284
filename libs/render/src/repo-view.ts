import { posix } from 'node:path';
import type { RepoEntry, RepoReader } from './repo-reader';
import type { UnitRepo } from './renderer';
import type { RendererRegistry } from './renderer-registry';

/** TreeCache keeps parsed trees by OID across revisions: trees never change, so a hit is always right. */
export class TreeCache {
  private readonly trees = new Map<string, Promise<readonly RepoEntry[]>>();
  private readonly names = new WeakMap<readonly RepoEntry[], ReadonlyMap<string, RepoEntry>>();

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

  /** entryIn finds one name in a tree by OID; each tree is indexed by name once, so a path resolves in a lookup per folder. */
  async entryIn(reader: RepoReader, oid: string, name: string): Promise<RepoEntry | undefined> {
    const entries = await this.read(reader, oid);
    let byName = this.names.get(entries);
    if (!byName) {
      byName = new Map(entries.map((entry) => [entry.path, entry]));
      this.names.set(entries, byName);
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
      tree = folder === '.' ? this.reader.treeAt(this.revision, '.') : this.childTree(folder);
      this.folders.set(folder, tree);
    }
    return tree;
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
