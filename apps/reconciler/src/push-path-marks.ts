/** PushPathStage names a point on the way from a push to a live object. */
export type PushPathStage =
  | 'webhook-received'
  | 'poll-started'
  | 'poll-read'
  | 'jobs-routed'
  | 'jobs-enqueued'
  | 'job-started'
  | 'job-finished'
  | 'kube-response';

/** PushPathDetail says which source, object or API request a mark belongs to. */
export interface PushPathDetail {
  source?: string;
  objectKey?: string;
  revision?: string;
  /** For kube-response: the request and how long it took. */
  request?: { method: string; path: string; status: number; durationMs: number; apply: boolean; dryRun: boolean };
}

/**
 * PushPathMark is told when a push passes each point (bench/e2e's per-stage breakdown). It is
 * called in the hot path, so it must be cheap and must not throw; the caller takes the time.
 */
export type PushPathMark = (stage: PushPathStage, detail: PushPathDetail) => void;
