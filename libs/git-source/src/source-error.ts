import type { RenderFailureCode } from '@tidemark/render';

/** SourceErrorCode names what is wrong with something in Git; stable for the dashboard and alerts. */
export type SourceErrorCode =
  | RenderFailureCode
  | 'ParseFailed'
  | 'LimitExceeded'
  | 'MissingIdentity'
  | 'DuplicateObject'
  | 'SymlinkRefused'
  | 'SubmoduleRefused'
  | 'PathNotFound';

/** SourceError is one problem found in Git at a revision: where it is and why. */
export interface SourceError {
  code: SourceErrorCode;
  /** Path from the repository root. */
  path: string;
  /** 1-based line, when the problem has one. */
  line?: number;
  /** A sentence that names the file, the line and the reason. */
  message: string;
  /** The object the problem stops, when it is known. */
  objectKey?: string;
}

/** SourceWarningCode names what a parser or renderer accepted but warned about. */
export type SourceWarningCode = 'ParserWarning' | 'RenderWarning';

/** SourceWarning is one warning about a file at a revision: it holds nothing back, it is only shown. */
export interface SourceWarning {
  code: SourceWarningCode;
  path: string;
  line?: number;
  /** A sentence that names the file, the line and what the tool said. */
  message: string;
}

/** describeLocation renders `path:line` (or `path`) for messages. */
export function describeLocation(path: string, line?: number): string {
  // Rendered objects have no line of their own (0): the unit's folder is their place.
  return !line ? path : `${path}:${line}`;
}
