import type { ApiClient } from '../api-client';
import type { SourceDetail, SourceProblem } from '../api-types';
import { paint, printJson, stateColour, table, type Output } from '../output';
import { age, indent, short } from './format';

/**
 * sourceCommand shows one Git source (GET /api/sources/:source): what it follows, the revision it
 * read, its last poll, and each file it could not read or warned about, with file and line.
 */
export async function sourceCommand(api: ApiClient, output: Output, name: string): Promise<void> {
  const source = await api.get<SourceDetail>(`/sources/${encodeURIComponent(name)}`);
  if (output.format === 'json') return printJson(output, source);
  const heading = (text: string) => paint(output, 'bold', text);
  const lines = [
    `${heading('Source:')}    ${source.name}`,
    `${heading('State:')}     ${paint(output, stateColour(source.state ?? 'Unknown'), source.state ?? 'unknown')}`,
    `${heading('Follows:')}   ${source.ref ?? '-'}`,
    `${heading('Revision:')}  ${short(source.revision)}${source.commitMessage ? `  ${source.commitMessage}` : ''}${source.commitAuthor ? ` (${source.commitAuthor})` : ''}`,
    `${heading('Objects:')}   ${source.declaredObjects ?? source.objects}`,
    `${heading('Polled:')}    ${age(source.polledAt)} ago`,
  ];
  if (source.error) lines.push(`${heading('Error:')}     ${paint(output, 'red', source.error)}`);
  output.write(`${lines.join('\n')}\n`);
  writeProblems(output, `Files that cannot be read (${source.sourceErrors ?? source.problems?.length ?? 0}):`, source.problems, 'red');
  writeProblems(output, `Warnings (${source.sourceWarnings ?? source.warnings?.length ?? 0}):`, source.warnings, 'yellow');
}

function writeProblems(output: Output, title: string, problems: readonly SourceProblem[] | undefined, colour: 'red' | 'yellow'): void {
  if (!problems?.length) return;
  output.write(`\n${paint(output, colour, title)}\n`);
  output.write(indent(table(['FILE', 'CODE', 'MESSAGE'], problems.map((problem) => [
    problem.line === undefined ? problem.path : `${problem.path}:${problem.line}`, problem.code, problem.message,
  ]))));
}
