import { identifyManifest, type IdentifiedManifest, type Manifest } from './manifest';
import type { LoadLimits } from './load-limits';
import { loadYamlDocuments, LoadFailure } from './load-yaml';
import type { SourceErrorCode, SourceWarningCode } from './source-error';
import { messageOf } from '@tidemark/contracts';

/** FileProblem is something wrong inside one file; the path is added by whoever knows it. */
export interface FileProblem {
  code: SourceErrorCode;
  line?: number;
  reason: string;
}

/** FileWarning is a parser's or renderer's warning about one file; it stops nothing. */
export interface FileWarning {
  code: SourceWarningCode;
  line?: number;
  reason: string;
}

/** ManifestEntry is one object read from a file, with the line its document starts on. */
export interface ManifestEntry extends IdentifiedManifest {
  line: number;
  /** For an object of a unit rendered per cluster: its manifest for each cluster that gets it. */
  variants?: ReadonlyMap<string, Manifest>;
}

/**
 * ManifestFile is what one blob holds. `failed` means the whole file could not be read, so
 * none of its objects are known (they must not be pruned because of it).
 */
export interface ManifestFile {
  entries: ManifestEntry[];
  problems: FileProblem[];
  /** What the parser warned about; the objects are read all the same. */
  warnings?: FileWarning[];
  failed: boolean;
  /** Size of the blob, which counts against the revision's byte budget. */
  bytes?: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** loadManifestFile parses a blob into objects, per the limits; it never throws. */
export function loadManifestFile(bytes: Uint8Array, limits: LoadLimits): ManifestFile {
  return { ...loadBytes(bytes, limits), bytes: bytes.byteLength };
}

function loadBytes(bytes: Uint8Array, limits: LoadLimits): ManifestFile {
  if (bytes.byteLength > limits.maxFileBytes) {
    return failedFile('LimitExceeded', `the file is ${bytes.byteLength} bytes, more than the limit of ${limits.maxFileBytes}`);
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return failedFile('ParseFailed', 'the file is not valid UTF-8');
  }
  try {
    const { values, warnings } = loadYamlDocuments(text, limits);
    const file = identifyAll(values);
    return warnings.length === 0 ? file : { ...file, warnings: warnings.map(({ line, message }) => ({ code: 'ParserWarning', line, reason: message })) };
  } catch (error) {
    if (error instanceof LoadFailure) return failedFile(error.reason, error.message, error.line);
    // A stack or memory failure inside the parser still stops only this file.
    return failedFile('ParseFailed', `the file could not be parsed (${messageOf(error)})`);
  }
}

function identifyAll(values: ReturnType<typeof loadYamlDocuments>['values']): ManifestFile {
  const file: ManifestFile = { entries: [], problems: [], failed: false };
  for (const { value, line } of values) {
    const identified = identifyManifest(value);
    if ('reason' in identified) file.problems.push({ code: 'MissingIdentity', line, reason: identified.reason });
    else file.entries.push({ ...identified, line });
  }
  return file;
}

function failedFile(code: SourceErrorCode, reason: string, line?: number): ManifestFile {
  return { entries: [], problems: [{ code, reason, ...(line === undefined ? {} : { line }) }], failed: true };
}
