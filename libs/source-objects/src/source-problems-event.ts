import { Reason, type SourceStatus } from '@tidemark/contracts';
import type { EventInput } from '@tidemark/cluster';

/** Longest Event message; the API server keeps 1 KiB of a core/v1 Event's message. */
const maxMessage = 1024;

/**
 * problemsEvent is the one Warning Event of a revision whose files cannot all be read: it names
 * each file with its line, reason and code, as the source page lists them. Its name is made of
 * the Source's name and the revision, so it is created once per revision however many polls
 * record that revision. undefined when the revision has no problem (or the record no revision).
 */
export function problemsEvent(objectName: string, record: SourceStatus): EventInput | undefined {
  const count = record.sourceErrors ?? 0;
  if (!record.revision || count === 0) return undefined;
  const head = `Revision ${record.revision.slice(0, 12)} has ${count} ${count === 1 ? 'problem' : 'problems'}; objects these files declared before are kept as they were: `;
  let body = '';
  let shown = 0;
  for (const problem of record.problems ?? []) {
    const next = `${body}${body ? '; ' : ''}${problem.message} (${problem.code})`;
    // Room for "; and N more."
    if (head.length + next.length > maxMessage - 20) break;
    body = next;
    shown += 1;
  }
  const left = count - shown;
  const tail = left > 0 ? `${body ? '; ' : ''}and ${left} more` : '';
  return { type: 'Warning', reason: Reason.SourceInvalid, message: `${head}${body}${tail}.`, name: `${objectName}.${record.revision.slice(0, 16)}.problems` };
}
