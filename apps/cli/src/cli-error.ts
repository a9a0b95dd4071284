/** ExitCode is what the `tidemark` process exits with; scripts may rely on these. */
export const ExitCode = {
  /** Done. */
  Ok: 0,
  /** The command ran but failed: the API refused it, the object is unknown, the server is down. */
  Failed: 1,
  /** Wrong arguments or configuration: fix the command line or the config file. */
  Usage: 2,
  /** diff and preview: merging would change something on a cluster. */
  Changes: 3,
  /** diff and preview: the API server would refuse an object (it fails validation). */
  Invalid: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** CliError is a failure to report as one sentence on stderr, with its exit code and a stable code. */
export class CliError extends Error {
  constructor(readonly code: string, message: string, readonly exitCode: ExitCode = ExitCode.Failed, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CliError';
  }
}
