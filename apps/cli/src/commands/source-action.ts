import type { ApiClient } from '../api-client';
import type { SourceActionResult } from '../api-types';
import { CliError, ExitCode } from '../cli-error';
import { printJson, type Output } from '../output';

export type SourceVerb = 'fetch' | 'suspend' | 'resume';

/**
 * sourceActionCommand polls a source now, or suspends or resumes its polling
 * (POST /api/sources/:source/<verb>; needs the operator role).
 */
export async function sourceActionCommand(api: ApiClient, output: Output, verb: SourceVerb, name: string): Promise<void> {
  const result = await api.post<SourceActionResult>(`/sources/${encodeURIComponent(name)}/${verb}`);
  if (output.format === 'json') return printJson(output, result);
  const detail = { fetch: 'a poll is asked for', suspend: 'suspended, not polled until resumed', resume: 'resumed, and a poll is asked for' }[verb];
  output.write(`${result.action} source ${result.source}: ${detail}\n`);
}

/** sourceVerbOf picks the one action flag given to `tidemark source`, if any; two are a usage error. */
export function sourceVerbOf(flags: { fetch?: boolean; suspend?: boolean; resume?: boolean }): SourceVerb | undefined {
  const chosen = (['fetch', 'suspend', 'resume'] as const).filter((verb) => flags[verb]);
  if (chosen.length > 1) throw new CliError('Usage', `give one of --fetch, --suspend and --resume, not ${chosen.map((verb) => `--${verb}`).join(' and ')}`, ExitCode.Usage);
  return chosen[0];
}
