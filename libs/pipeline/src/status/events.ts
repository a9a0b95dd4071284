import { recordEvent, type EventInput } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/**
 * recordEvents emits what a run has to say about an object as one aggregated Event (none when
 * there is nothing); a failure to record it is logged, never a reconcile failure.
 */
export async function recordEvents(run: Pick<ReconcileRun, 'job' | 'reportingConnection'>, deps: Pick<PipelineDependencies, 'log'>, about: KubernetesManifest, events: readonly EventInput[]): Promise<void> {
  const event = aggregateEvents(events);
  if (!event) return;
  try {
    await recordEvent(run.reportingConnection, about, event);
  } catch (error) {
    deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not record an event');
  }
}

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
