import type { PreviewReport } from '@tidemark/contracts';
import type { ApiClient } from '../api-client';
import { CliError, ExitCode } from '../cli-error';
import type { Output } from '../output';
import type { Overview } from '../api-types';
import { exitCodeOf, printReport } from './report';

/** PreviewOptions: the source (needed when there are several), whether to wait, and how the report is shown. */
export interface PreviewOptions {
  source?: string;
  wait: boolean;
  timeoutSeconds: number;
  markdown: boolean;
  /** Time between two reads of the report while it runs. @defaultValue 500 */
  pollMs?: number;
}

/**
 * previewCommand asks the dashboard for a preview of a branch or commit (POST /api/previews; a
 * reconciler worker runs it: render at the ref, server-side dry-run on every targeted cluster,
 * nothing written), waits for the report, prints it, and exits 0 (no change), 3 (changes),
 * 4 (an object would be refused) or 1 (the preview failed or a cluster could not be asked).
 */
export async function previewCommand(api: ApiClient, output: Output, ref: string, options: PreviewOptions): Promise<ExitCode> {
  const source = options.source ?? (await onlySource(api));
  const queued = await api.post<{ source: string; ref: string; status: string }>('/previews', { source, ref });
  if (!options.wait) {
    output.write(output.format === 'json' ? `${JSON.stringify(queued, null, 2)}\n` : `Preview of ${queued.ref} in source ${queued.source}: ${queued.status}. Read it with \`tidemark preview ${queued.ref} --source ${queued.source}\` or on the dashboard.\n`);
    return ExitCode.Ok;
  }
  const report = await waitForReport(api, queued.source, queued.ref, options);
  const markdown = options.markdown ? (await import('@tidemark/preview')).previewMarkdown : undefined;
  printReport(output, report, markdown ? { markdown: (shown) => markdown(shown, `${api.server}/previews/${encodeURIComponent(shown.source)}/${encodeURIComponent(shown.ref)}`) } : {});
  return exitCodeOf(report);
}

async function waitForReport(api: ApiClient, source: string, ref: string, options: PreviewOptions): Promise<PreviewReport> {
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const path = `/previews/${encodeURIComponent(source)}/${encodeURIComponent(ref)}`;
  for (;;) {
    const report = await api.get<PreviewReport>(path).catch((error: unknown) => {
      // Between the request and the first write a report may not exist yet.
      if (error instanceof CliError && error.code === 'NotFound') return undefined;
      throw error;
    });
    if (report && (report.state === 'done' || report.state === 'failed')) return report;
    if (Date.now() > deadline) throw new CliError('PreviewTimeout', `the preview of ${ref} is still ${report?.state ?? 'queued'} after ${options.timeoutSeconds} s; is a reconciler worker running? Try again with --timeout or --no-wait`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
  }
}

/** onlySource is the source to preview when none is named: there must be exactly one. */
async function onlySource(api: ApiClient): Promise<string> {
  const overview = await api.get<Overview>('/overview');
  const names = overview.sources.map((source) => source.name);
  if (names.length === 1) return names[0]!;
  throw new CliError('SourceRequired', names.length === 0 ? 'the dashboard knows no source yet; name one with --source' : `name the source with --source: one of ${names.join(', ')}`, ExitCode.Usage);
}
