import type { EventInput } from '@tidemark/cluster';

/** The API server keeps an Event message up to 1,024 characters; recordEvent cuts there too. */
const messageLimit = 1024;

/**
 * aggregateEvents folds what one run has to say into one Event, as Flux does with its change
 * set: one line per thing, in the order given (the most telling first). It is a Warning if any
 * part is, named by the first Warning's reason; otherwise it is named by the first event's
 * reason. No events, no Event: an unchanged run says nothing.
 */
export function aggregateEvents(events: readonly EventInput[]): EventInput | undefined {
  const first = events[0];
  if (!first || events.length === 1) return first;
  const warning = events.find((event) => event.type === 'Warning');
  const lines: string[] = [];
  let length = 0;
  for (const [index, event] of events.entries()) {
    const rest = events.length - index - 1;
    const more = rest > 0 ? `… and ${rest} more` : '';
    if (length + event.message.length + 1 + more.length > messageLimit) {
      lines.push(`… and ${events.length - index} more`);
      break;
    }
    lines.push(event.message);
    length += event.message.length + 1;
  }
  return { type: warning ? 'Warning' : 'Normal', reason: (warning ?? first).reason, message: lines.join('\n') };
}
