/** RenderFailureCode names why a render unit produced no objects; stable for the dashboard and alerts. */
export type RenderFailureCode =
  | 'RenderFailed'
  | 'RenderTimedOut'
  | 'RenderOutputTooLarge'
  | 'RenderMemoryExceeded'
  | 'RenderToolMissing'
  | 'RenderInputTooLarge'
  | 'RemoteBaseRefused'
  | 'RemoteBaseFailed'
  | 'PathEscapeRefused'
  | 'SymlinkRefused'
  | 'SubmoduleRefused'
  | 'ChartDependencyMissing'
  | 'ChartRepositoryFailed'
  | 'ChartCredentialsMissing'
  | 'ChartDigestMismatch'
  | 'ChartTooLarge'
  | 'ChartArchiveRefused'
  | 'RenderConfigInvalid'
  | 'DecryptFailed'
  | 'DecryptedValueOutsideSecret';

/**
 * RenderFailure is a render unit that could not be rendered: its message is a sentence that
 * names the unit and, where the renderer gives them, the file and line. Its objects are held
 * at their last good state, never pruned because of it.
 */
export class RenderFailure extends Error {
  constructor(readonly code: RenderFailureCode, message: string, readonly file?: string, readonly line?: number) {
    super(message);
    this.name = 'RenderFailure';
  }
}
