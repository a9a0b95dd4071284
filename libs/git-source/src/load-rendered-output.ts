import { defaultLoadLimits, type LoadLimits } from './load-limits';
import { loadManifestFile, type ManifestFile } from './load-manifest-file';

const newline = 0x0a;
// After `---` a document start has a space, a tab, a line end or the end of the stream.
const afterMarker = new Set([0x20, 0x09, 0x0d, newline]);

/**
 * loadRenderedOutput reads a unit's rendered YAML stream with the memory budget of Git content.
 * The stream as a whole is bounded by `limits.maxFileBytes` (the source's revision budget) and
 * `limits.maxDocuments`; it is parsed in pieces of whole documents, each under the limits of one
 * Git file (2 MiB, and the node, depth and alias limits). A piece holds at most `pieceBytes`
 * unless one document is longer, and as every YAML node takes at least one byte, a piece of
 * `limits.maxNodes` bytes can never pass the node limit: only a single document that would as a
 * Git file is refused. So a render holds one piece's syntax tree at a time, as reading a revision
 * holds one file's, never the whole chart's. It never throws.
 */
export function loadRenderedOutput(bytes: Uint8Array, limits: LoadLimits, pieceBytes = limits.maxNodes): ManifestFile {
  if (bytes.byteLength > limits.maxFileBytes) {
    return failed(`the output is ${bytes.byteLength} bytes, more than the limit of ${limits.maxFileBytes} (the source's revision budget)`);
  }
  const file: ManifestFile = { entries: [], problems: [], failed: false, bytes: bytes.byteLength };
  const pieceLimits = { ...limits, maxFileBytes: defaultLoadLimits.maxFileBytes };
  for (const piece of pieces(bytes, pieceBytes)) {
    const parsed = loadManifestFile(piece, pieceLimits);
    if (parsed.failed) return { ...parsed, bytes: bytes.byteLength };
    file.entries.push(...parsed.entries);
    file.problems.push(...parsed.problems);
    if (parsed.warnings) file.warnings = [...(file.warnings ?? []), ...parsed.warnings];
    if (file.entries.length + file.problems.length > limits.maxDocuments) return failed(`more than ${limits.maxDocuments} documents in one output`);
  }
  return file;
}

/**
 * pieces cuts the stream at document starts (`---` at the start of a line, which YAML forbids
 * inside a document) into runs of whole documents of at most `size` bytes; a longer document is
 * a piece of its own, which its per-file limit then refuses.
 */
function* pieces(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  let start = 0;
  let last = 0;
  for (const next of documentStarts(bytes)) {
    if (next - start > size && last > start) {
      yield bytes.subarray(start, last);
      start = last;
    }
    last = next;
  }
  if (bytes.length - start > size && last > start) {
    yield bytes.subarray(start, last);
    start = last;
  }
  if (start < bytes.length) yield bytes.subarray(start);
}

function* documentStarts(bytes: Uint8Array): Generator<number> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = buffer.indexOf('\n---'); at >= 0; at = buffer.indexOf('\n---', at + 1)) {
    const marker = at + 1;
    const following = buffer[marker + 3];
    if (following === undefined || afterMarker.has(following)) yield marker;
  }
}

function failed(reason: string): ManifestFile {
  return { entries: [], problems: [{ code: 'LimitExceeded', reason }], failed: true };
}

/** Most documents one unit's output may hold: a large chart's objects. */
const maxRenderedDocuments = 20_000;

/**
 * renderedOutputLimits are the limits of one unit's output: the whole stream is bounded by the
 * source's revision budget, each piece by the limits of one Git file (nodes, depth, aliases).
 */
export function renderedOutputLimits(fileLimits: LoadLimits, maxRevisionBytes: number): LoadLimits {
  return { ...fileLimits, maxFileBytes: maxRevisionBytes, maxDocuments: maxRenderedDocuments };
}
