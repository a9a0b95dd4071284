import type { FileProblem, FileWarning, ManifestEntry } from './load-manifest-file';
import type { Manifest } from './manifest';
import { describeLocation, type SourceError, type SourceWarning } from './source-error';

/** UnitProvenance says which render unit produced an object: the renderer and the unit's folder. */
export interface UnitProvenance {
  renderer: string;
  folder: string;
  /** For an object of a unit rendered per cluster, read for one cluster: the values that cluster got. */
  clusterValues?: Record<string, string>;
  /** In the index, for a unit rendered per cluster: the values each cluster got, flattened as `clusterValues`. */
  valuesByCluster?: ReadonlyMap<string, Record<string, string>>;
  /** The unit held sops-encrypted files: what is derived from it goes to no reader outside its source unless trusted. */
  decrypted?: boolean;
}

/** IndexedObject is one declaration of an object at a revision, or a hold on it by a broken file. */
export interface IndexedObject {
  objectKey: string;
  path: string;
  blobOid: string;
  line: number;
  fingerprint: string;
  manifest?: Manifest;
  /** Set when the file that declared this object can no longer be read: the object is held, not removed. */
  error?: SourceError;
  /** Set for an object a render unit produced. */
  unit?: UnitProvenance;
  /** For a unit rendered per cluster: the manifest for each cluster that gets the object. */
  variants?: ReadonlyMap<string, Manifest>;
}

/** IndexedFile records what one file contributed to the index. */
export interface IndexedFile {
  path: string;
  blobOid: string;
  keys: readonly string[];
  problems: readonly SourceError[];
  warnings?: readonly SourceWarning[];
}

/** FileContent is a file as loaded, about to enter the index. */
export interface FileContent {
  path: string;
  blobOid: string;
  /** Set when the "file" is a render unit's output. */
  unit?: UnitProvenance;
  entries: readonly ManifestEntry[];
  problems: readonly FileProblem[];
  /** What the parser or renderer warned about; shown, never holding anything back. */
  warnings?: readonly FileWarning[];
}

/** FileUpdate replaces or removes one path in the index. */
export type FileUpdate = { path: string; content?: FileContent };

/** ObjectLookup is what the index knows of one key: its object, or why it cannot be used. */
export type ObjectLookup = { object: IndexedObject & { manifest: Manifest } } | { error: SourceError } | undefined;

/**
 * RevisionIndex maps every object key at one revision to where it is declared. It is
 * immutable: `update` returns a new index plus the keys the update touched, so the next
 * revision is derived from the previous one by the files that changed, never rebuilt.
 */
export class RevisionIndex {
  private constructor(
    private readonly files: ReadonlyMap<string, IndexedFile>,
    private readonly objects: ReadonlyMap<string, readonly IndexedObject[]>,
  ) {}

  static empty(): RevisionIndex {
    return new RevisionIndex(new Map(), new Map());
  }

  update(updates: readonly FileUpdate[]): { index: RevisionIndex; touched: Set<string> } {
    const files = new Map(this.files);
    const objects = new Map(this.objects);
    const touched = new Set<string>();
    for (const { path, content } of updates) {
      const previous = files.get(path);
      for (const key of previous?.keys ?? []) {
        touched.add(key);
        const rest = (objects.get(key) ?? []).filter((object) => object.path !== path);
        if (rest.length > 0) objects.set(key, rest);
        else objects.delete(key);
      }
      files.delete(path);
      if (!content) continue;
      const added = declarations(content, previous);
      for (const object of added) {
        touched.add(object.objectKey);
        objects.set(object.objectKey, [...(objects.get(object.objectKey) ?? []), object]);
      }
      const warnings = (content.warnings ?? []).map((warning) => locate(path, warning));
      files.set(path, { path, blobOid: content.blobOid, keys: added.map((object) => object.objectKey), problems: content.problems.map((problem) => locate(path, problem)), ...(warnings.length > 0 ? { warnings } : {}) });
    }
    return { index: new RevisionIndex(files, objects), touched };
  }

  lookup(objectKey: string): ObjectLookup {
    const own = this.objects.get(objectKey);
    if (!own || own.length === 0) return undefined;
    const held = own.find((object) => object.error);
    if (held?.error) return { error: held.error };
    // The same live object written with and without `namespace: default` is one object declared twice.
    const declared = [...own, ...(this.objects.get(otherSpelling(objectKey) ?? '') ?? [])];
    if (declared.length > 1) return { error: duplicateError(objectKey, declared) };
    const [object] = declared;
    return object?.manifest ? { object: { ...object, manifest: object.manifest } } : undefined;
  }

  /** fileAt returns what the index holds for a path (used to reuse blobs and find ignore files). */
  fileAt(path: string): IndexedFile | undefined {
    return this.files.get(path);
  }

  paths(): IterableIterator<string> {
    return this.files.keys();
  }

  keys(): IterableIterator<string> {
    return this.objects.keys();
  }

  /** errors lists every problem at this revision: broken files, then duplicated objects. */
  errors(): SourceError[] {
    const errors = [...this.files.values()].flatMap((file) => file.problems);
    for (const [key, declared] of this.objects) {
      if (declared.length > 1) errors.push(duplicateError(key, declared));
      const other = otherSpelling(key);
      // Each pair once: reported under the key without a namespace.
      if (other && key.split('/')[2] === '_' && this.objects.get(other)?.length) errors.push(duplicateError(key, [...declared, ...this.objects.get(other)!]));
    }
    return errors;
  }

  /** warnings lists every parser and renderer warning at this revision, file by file. */
  warnings(): SourceWarning[] {
    return [...this.files.values()].flatMap((file) => file.warnings ?? []);
  }

  /** summary returns where the object is declared (first place), for change records. */
  summary(objectKey: string): { path: string; blobOid: string; line: number; signature: string } | undefined {
    const lookup = this.lookup(objectKey);
    const declared = this.objects.get(objectKey);
    const first = declared?.[0];
    if (!lookup || !first) return undefined;
    const signature = 'object' in lookup ? `ok:${lookup.object.fingerprint}` : `error:${lookup.error.message}`;
    return { path: first.path, blobOid: first.blobOid, line: first.line, signature };
  }
}

function declarations(content: FileContent, previous: IndexedFile | undefined): IndexedObject[] {
  const { path, blobOid } = content;
  const objects: IndexedObject[] = content.entries.map((entry) => ({
    objectKey: entry.objectKey, path, blobOid, line: entry.line, fingerprint: entry.fingerprint, manifest: entry.manifest,
    ...(content.unit ? { unit: content.unit } : {}),
    ...(entry.variants ? { variants: entry.variants } : {}),
  }));
  const [problem] = content.problems;
  if (!problem || !previous) return objects;
  // Objects this file declared before it broke are held with its error, so a typo never prunes them.
  const present = new Set(objects.map((object) => object.objectKey));
  for (const key of previous.keys) {
    if (present.has(key)) continue;
    const error = { ...locate(path, problem), objectKey: key };
    error.message = `${key} cannot be read: ${error.message}`;
    objects.push({ objectKey: key, path, blobOid, line: problem.line ?? 0, fingerprint: '', error, ...(content.unit ? { unit: content.unit } : {}) });
  }
  return objects;
}

function locate<Code extends string>(path: string, problem: { code: Code; line?: number; reason: string }): { code: Code; path: string; line?: number; message: string } {
  return {
    code: problem.code,
    path,
    ...(problem.line === undefined ? {} : { line: problem.line }),
    message: `${describeLocation(path, problem.line)}: ${problem.reason}`,
  };
}

/**
 * otherSpelling is the key the same live object has when its namespace is written the other way:
 * `default` for none, none for `default`. A namespaced kind lands in `default` either way, and a
 * cluster-scoped one ignores the namespace, so both keys always name one live object.
 */
function otherSpelling(objectKey: string): string | undefined {
  const parts = objectKey.split('/');
  if (parts.length !== 4) return undefined;
  if (parts[2] === '_') return [parts[0], parts[1], 'default', parts[3]].join('/');
  if (parts[2] === 'default') return [parts[0], parts[1], '_', parts[3]].join('/');
  return undefined;
}

function duplicateError(objectKey: string, declared: readonly IndexedObject[]): SourceError {
  const places = declared.map((object) => describeLocation(object.path, object.line));
  const [first] = declared;
  return {
    code: 'DuplicateObject',
    path: first?.path ?? '',
    ...(first ? { line: first.line } : {}),
    objectKey,
    message: `${objectKey} is declared more than once, at ${places.join(' and ')}; nothing is applied for it until one is removed`,
  };
}
