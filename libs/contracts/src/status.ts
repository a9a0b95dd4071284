import type { Condition } from './conditions';
import type { FailureCategory } from './errors';

/** InventoryEntry is one object a Git object applied, as kept for prune. */
export interface InventoryEntry {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** DriftItem is one field that differs between what Git wants and what the cluster holds. */
export interface DriftItem {
  /** The drifted object, `Kind namespace/name` (a CR's owned objects drift too). */
  object?: string;
  /** JSON pointer, e.g. /spec/replicas. */
  path: string;
  desired: unknown;
  live: unknown;
  /** The field manager that last wrote the live value (from managedFields). */
  manager: string;
  detectedAt: string;
}

/** ChangeCounts sums what one apply did. */
export interface ChangeCounts {
  created: number;
  configured: number;
  unchanged: number;
  deleted: number;
}

/**
 * RenderUnitRef names the render unit an object came from. `clusterValues` are the
 * `${cluster.…}` values (name, labels.KEY, variables.KEY) of a unit rendered per cluster.
 */
export interface RenderUnitRef {
  renderer: string;
  folder: string;
  clusterValues?: Record<string, string>;
}

/**
 * ObjectStatus is what the status store keeps per (cluster, object): enough for the dashboard
 * to show every cluster at once, without any object body or Secret data.
 */
export interface ObjectStatus {
  cluster: string;
  objectKey: string;
  source: string;
  /** The file in Git that declares the object, and its line; for a rendered object its unit's folder. */
  path?: string;
  line?: number;
  /** Set for a rendered object: its renderer and unit folder, and the values its cluster got when the unit renders per cluster. */
  renderUnit?: RenderUnitRef;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  generation?: number;
  observedGeneration?: number;
  lastAppliedRevision?: string;
  lastAttemptedRevision?: string;
  /** sha256 of the desired object at the last attempt; a stalled object waits for it to change. */
  specHash?: string;
  conditions: Condition[];
  inventory: InventoryEntry[];
  /** Kind-specific status fields, e.g. ConfigWatcher's lastConfigMapHash. */
  kindStatus?: Record<string, unknown>;
  drift?: DriftItem[];
  /**
   * The last run's failure, while it lasts: what kind of failure it is (the badge and the counts
   * read it), its stable code, and the raw text behind the cleaned condition message.
   */
  failure?: FailureSummary;
  /** Things a user should know that are not failures, each a sentence. */
  warnings?: string[];
  suspended?: boolean;
  updatedAt: string;
}

/** FailureSummary is what the status store keeps of a failed run beyond its conditions. */
export interface FailureSummary {
  category: FailureCategory;
  code: string;
  /** The API server's own words, Go internals and all; shown on the detail page only. */
  detail?: string;
}

/** ReconcileRecord is one entry of an object's recent reconcile history. */
export interface ReconcileRecord {
  revision: string;
  startedAt: string;
  durationMs: number;
  result: 'succeeded' | 'progressing' | 'failed' | 'stalled' | 'pruned' | 'skipped';
  stage?: string;
  message?: string;
  changes?: ChangeCounts;
}
