import { formatDuration, healthTimeoutAnnotation, parseHealthTimeout } from '@tidemark/ordering';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/** The health timeout when neither the object nor the config sets one: Flux's default Kustomization timeout, ten minutes. */
const defaultHealthTimeoutMs = 600_000;

/**
 * healthTimeoutOf is how long the run's object may take to become Ready: its
 * tidemark.dev/health-timeout annotation, else its source's healthTimeoutMs, else the configured
 * default. The order stage refuses an unreadable annotation first (readHealthTimeout), so here it
 * can only be absent or good.
 */
/** HealthTimeoutDependencies is what the health timeout reads: the per-kind timeouts and the default. */
export type HealthTimeoutDependencies = Pick<PipelineDependencies, 'healthTimeoutFor' | 'options'>;

export function healthTimeoutOf(run: ReconcileRun, deps: HealthTimeoutDependencies): number {
  const fallback = deps.healthTimeoutFor?.(run.job.source) ?? deps.options?.healthTimeoutMs ?? defaultHealthTimeoutMs;
  try {
    return readHealthTimeout(run) ?? fallback;
  } catch {
    return fallback;
  }
}

/** readHealthTimeout parses the object's annotation; throws an Error saying the form. */
export function readHealthTimeout(run: ReconcileRun): number | undefined {
  try {
    return parseHealthTimeout(run.desired?.object.metadata.annotations?.[healthTimeoutAnnotation]);
  } catch (error) {
    throw new Error(`${healthTimeoutAnnotation}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * unreadySince is when the object stopped being Ready at its current spec: kept from the last run
 * while the spec is the same and it was not Ready then, else now. A new revision that changes the
 * object starts its clock again.
 */
export function unreadySince(run: ReconcileRun, now: Date): string {
  const previous = run.previous;
  if (previous?.unreadySince && previous.specHash === run.specHash) return previous.unreadySince;
  return now.toISOString();
}

/** HealthWait is how long the object has not been Ready, against its timeout. */
export interface HealthWait {
  waitedMs: number;
  timeoutMs: number;
  timedOut: boolean;
  /** "2m5s, past its health timeout of 2m0s", for messages. */
  said: string;
}

/** healthWait measures the run's wait for Ready against its health timeout. */
export function healthWait(run: ReconcileRun, deps: HealthTimeoutDependencies, now: Date): HealthWait {
  const waitedMs = Math.max(0, now.getTime() - Date.parse(unreadySince(run, now)));
  const timeoutMs = healthTimeoutOf(run, deps);
  const timedOut = waitedMs >= timeoutMs;
  return { waitedMs, timeoutMs, timedOut, said: `${formatDuration(waitedMs)}, ${timedOut ? 'past' : 'within'} its health timeout of ${formatDuration(timeoutMs)}` };
}
