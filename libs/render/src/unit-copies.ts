import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, type BigIntStats, type Dirent } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InputTree, WrittenFile } from './materialise';

/** CopyFs is the file calls a copy is kept with. */
interface CopyFs {
  readdir(path: string): Promise<Dirent[]>;
  lstat(path: string): Promise<BigIntStats>;
  rm(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  writeFile(path: string, bytes: Uint8Array, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

const asyncFs: CopyFs = {
  readdir: (path) => readdir(path, { withFileTypes: true }),
  lstat: (path) => lstat(path, { bigint: true }),
  rm: (path) => rm(path, { recursive: true, force: true }),
  mkdir: async (path) => { await mkdir(path, { recursive: true }); },
  writeFile: (path, bytes, mode) => writeFile(path, bytes, { mode }),
  rename,
};

// A small unit's copy is checked and written with synchronous calls: a few dozen calls of
// microseconds each cost less than as many round trips through libuv's thread pool, which on a
// loaded machine wait for a thread each.
const syncFs: CopyFs = {
  readdir: async (path) => readdirSync(path, { withFileTypes: true }),
  lstat: async (path) => lstatSync(path, { bigint: true }),
  rm: async (path) => rmSync(path, { recursive: true, force: true }),
  mkdir: async (path) => { mkdirSync(path, { recursive: true }); },
  writeFile: async (path, bytes, mode) => writeFileSync(path, bytes, { mode }),
  rename: async (from, to) => renameSync(from, to),
};

/** A unit up to this many files and bytes is kept with synchronous calls (syncFs). */
const smallUnit = { files: 64, bytes: 1024 * 1024 };

/** KeptFile is what a kept copy holds at one path: the blob written there, and its inode as left by that write. */
interface KeptFile {
  oid: string;
  mode: number;
  ino: bigint;
  size: bigint;
  // The kernel sets ctime on every write, chmod, rename or utimes, and nothing can set it back:
  // a file changed by anyone since Tidemark wrote it has another ctime.
  ctimeNs: bigint;
}

interface UnitCopy {
  /** The copy's own folder: `repo/` is the unit's input tree, `scratch/` the renderer's HOME, `staging/` half-written files. */
  work: string;
  files: Map<string, KeptFile>;
  /** Bytes of the input files it holds. */
  bytes: number;
  busy: boolean;
}

/** CheckedOutCopy is a kept copy that holds exactly a unit's input tree, lent to one render until `release`. */
export interface CheckedOutCopy {
  work: string;
  root: string;
  scratch: string;
  written: WrittenFile[];
  /** Files written by this checkout (the others were right already). */
  rewritten: number;
  /** release returns the copy; it resolves (never rejects) when copies past the limits are removed. */
  release(): Promise<void>;
}

/**
 * UnitCopies keeps a written copy of each unit's input tree between renders, so a render
 * writes only the files whose blob changed since the last one. Before each render the copy is
 * compared with the unit's tree on disk, not only in memory: a file or folder that is not an
 * input (a file removed in Git, a chart a renderer copied in) is removed, and a file whose inode
 * changed since Tidemark wrote it is written again. Files are written to a staging folder and
 * renamed into place, so a failed write never leaves half a file at an input path.
 */
export class UnitCopies {
  private readonly copies = new Map<string, UnitCopy>();

  /** @param capacity most units kept, @param maxBytes most bytes of input files kept, all units together */
  constructor(private readonly workDir: string, private readonly capacity = 256, private readonly maxBytes = 256 * 1024 * 1024) {}

  /** checkout brings the unit's copy in step with `tree`, or returns undefined when another render holds it. */
  async checkout(key: string, tree: InputTree): Promise<CheckedOutCopy | undefined> {
    let copy = this.copies.get(key);
    if (copy?.busy) return undefined;
    if (copy) this.copies.delete(key);
    else copy = await this.create();
    this.copies.set(key, copy);
    copy.busy = true;
    const held = copy;
    try {
      const rewritten = await synchronise(held, tree);
      held.bytes = tree.files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
      const root = join(held.work, 'repo');
      return {
        work: held.work, root, scratch: join(held.work, 'scratch'), rewritten,
        written: tree.files.map((file) => ({ path: file.path, absolute: join(root, file.path), bytes: file.bytes })),
        release: () => {
          held.busy = false;
          return this.evict().catch(() => undefined);
        },
      };
    } catch (error) {
      // A copy that could not be brought in step is not trusted again.
      this.copies.delete(key);
      await rm(held.work, { recursive: true, force: true });
      throw error;
    }
  }

  /** close removes every kept copy. */
  async close(): Promise<void> {
    const copies = [...this.copies.values()];
    this.copies.clear();
    await Promise.all(copies.map((copy) => rm(copy.work, { recursive: true, force: true })));
  }

  private async create(): Promise<UnitCopy> {
    const work = await mkdtemp(join(this.workDir, 'tidemark-unit-'));
    await Promise.all(['repo', 'scratch', 'staging'].map((name) => mkdir(join(work, name))));
    return { work, files: new Map(), bytes: 0, busy: false };
  }

  /** evict removes the least recently used copies past the unit or byte limit; the copies in use stay. */
  private async evict(): Promise<void> {
    let bytes = 0;
    for (const copy of this.copies.values()) bytes += copy.bytes;
    const removed: UnitCopy[] = [];
    for (const [key, copy] of this.copies) {
      if (this.copies.size <= this.capacity && bytes <= this.maxBytes) break;
      if (copy.busy) continue;
      this.copies.delete(key);
      bytes -= copy.bytes;
      removed.push(copy);
    }
    await Promise.all(removed.map((copy) => rm(copy.work, { recursive: true, force: true })));
  }
}

/** synchronise makes the copy's `repo/` hold exactly `tree`, and empties `scratch/`; it returns how many files it wrote. */
async function synchronise(copy: UnitCopy, tree: InputTree): Promise<number> {
  const root = join(copy.work, 'repo');
  const small = tree.files.length <= smallUnit.files && tree.files.reduce((sum, file) => sum + file.bytes.byteLength, 0) <= smallUnit.bytes;
  const fs = small ? syncFs : asyncFs;
  const wanted = new Map(tree.files.map((file) => [file.path, file]));
  const folders = new Set<string>();
  for (const folder of [...tree.folders, ...tree.files.map((file) => parentOf(file.path))]) {
    for (let at = folder; at !== '.' && !folders.has(at); at = parentOf(at)) folders.add(at);
  }
  const present = new Set<string>();
  await Promise.all([prune({ copy, root, wanted, folders, present, fs }, ''), emptyScratch(copy.work, fs)]);
  const missingFolders = [...folders].filter((folder) => !present.has(folder) && ![...folders].some((other) => other.startsWith(`${folder}/`)));
  await Promise.all(missingFolders.map((folder) => fs.mkdir(join(root, folder))));
  const stale = tree.files.filter((file) => !present.has(file.path));
  await Promise.all(stale.map(async (file, index) => {
    const staged = join(copy.work, 'staging', String(index));
    const target = join(root, file.path);
    copy.files.delete(file.path);
    await fs.writeFile(staged, file.bytes, file.mode);
    await fs.rename(staged, target);
    const stat = await fs.lstat(target);
    copy.files.set(file.path, { oid: file.oid, mode: file.mode, ino: stat.ino, size: stat.size, ctimeNs: stat.ctimeNs });
  }));
  for (const path of copy.files.keys()) if (!wanted.has(path)) copy.files.delete(path);
  return stale.length;
}

/** CopyWalk is one comparison of a copy on disk with the tree it must hold. */
interface CopyWalk {
  copy: UnitCopy;
  root: string;
  wanted: ReadonlyMap<string, InputTree['files'][number]>;
  /** Every folder of the tree, with its parents. */
  folders: ReadonlySet<string>;
  /** Filled in: folders present, and files exactly as Tidemark wrote them with the wanted blob. */
  present: Set<string>;
  fs: CopyFs;
}

/**
 * prune walks the copy on disk: it removes what is not in the tree and records in `present` the
 * folders and the files that are exactly as Tidemark wrote them with the wanted blob.
 */
async function prune(walk: CopyWalk, folder: string): Promise<void> {
  const { copy, root, wanted, folders, present, fs } = walk;
  const entries = await fs.readdir(folder ? join(root, folder) : root);
  await Promise.all(entries.map(async (entry) => {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    const absolute = join(root, path);
    if (entry.isDirectory() && folders.has(path)) {
      present.add(path);
      await prune(walk, path);
      return;
    }
    const file = wanted.get(path);
    const kept = copy.files.get(path);
    if (entry.isFile() && file && kept && kept.oid === file.oid && kept.mode === file.mode) {
      const stat = await fs.lstat(absolute);
      if (stat.ino === kept.ino && stat.size === kept.size && stat.ctimeNs === kept.ctimeNs) {
        present.add(path);
        return;
      }
    }
    copy.files.delete(path);
    await fs.rm(absolute);
  }));
}

async function emptyScratch(work: string, fs: CopyFs): Promise<void> {
  const scratch = join(work, 'scratch');
  if ((await fs.readdir(scratch)).length === 0) return;
  await fs.rm(scratch);
  await fs.mkdir(scratch);
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '.' : path.slice(0, slash);
}
