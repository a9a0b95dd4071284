// The parts of the dashboard API's JSON that the CLI reads. The API's own schemas
// (apps/dashboard/src/api, served at /api/openapi.json) are the contract; `-o json` prints the
// API's body unchanged, so it is exactly as stable as the API.

export interface StateCounts {
  total: number; Ready: number; Reconciling: number; Waiting: number; Stalled: number;
  Failed: number; Unknown: number; Drifted: number; Suspended: number;
}

export interface SourceRow {
  name: string; revision?: string; polledAt?: string; state?: string; error?: string; objects: number;
  ref?: string; declaredObjects?: number; commitMessage?: string; sourceErrors?: number;
}

/** SourceProblem is a file of a source that could not be read, or a warning about one (GET /api/sources/:source). */
export interface SourceProblem { path: string; line?: number; code: string; message: string }

/** SourceDetail is one source as GET /api/sources/:source answers. */
export interface SourceDetail extends SourceRow {
  errorAt?: string; commitAuthor?: string; sourceWarnings?: number;
  problems?: SourceProblem[]; warnings?: SourceProblem[];
}

export interface ClusterRow {
  name: string; counts: StateCounts;
  health: { state: string; since: string; lastCheck: string; latencyMs?: number; message?: string; queuePaused: boolean };
  queue?: { depth: { waiting: number; active: number; delayed: number; failed: number } };
  freeze?: { by: string; reason: string; since: string };
  /** Set when an agent inside the cluster serves it. */
  agent?: { heartbeat?: { version: string; serverVersion?: string; lastSeen: string } };
}

export interface Overview { counts: StateCounts; sources: SourceRow[]; clusters: ClusterRow[]; queueError?: string }

export interface Cell { state: string; drifted: boolean; suspended: boolean; generation?: number; observedGeneration?: number; reason?: string; updatedAt: string }

export interface ObjectRow { objectKey: string; group: string; kind: string; namespace: string; name: string; path?: string; cells: Record<string, Cell> }

export interface ObjectPage { clusters: string[]; total: number; page: number; pageSize: number; pages: number; rows: ObjectRow[] }

export interface Condition { type: string; status: string; reason: string; message: string; lastTransitionTime: string; observedGeneration: number }

export interface DriftItem { object?: string; path: string; desired: unknown; live: unknown; manager: string; detectedAt: string }

export interface ObjectStatus {
  cluster: string; objectKey: string; source: string; path?: string; line?: number; apiVersion: string; kind: string;
  namespace: string; name: string; generation?: number; observedGeneration?: number; lastAppliedRevision?: string;
  lastAttemptedRevision?: string; conditions: Condition[]; inventory: Array<{ apiVersion: string; kind: string; namespace: string; name: string }>;
  drift?: DriftItem[]; warnings?: string[]; suspended?: boolean; updatedAt: string;
  failure?: { category: string; code: string; detail?: string };
}

export interface ReconcileRecord { revision: string; startedAt: string; durationMs: number; result: string; stage?: string; message?: string; repeats?: number }

export interface ObjectDetail { status: ObjectStatus; history: ReconcileRecord[]; clusters: string[] }

/** SourceActionResult is what POST /api/sources/:source/<verb> answers. */
export interface SourceActionResult { action: string; source: string; suspended?: boolean }
/** FreezeResult is what POST /api/clusters/:cluster/freeze and /unfreeze answer. */
export interface FreezeResult { action: string; cluster: string; frozen: boolean; freeze?: { cluster: string; by: string; reason: string; since: string }; woken?: number }
export interface ActionResult { action: string; cluster: string; objectKey?: string; queue?: string; retried?: number; suspended?: boolean }
