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

/** ResourceHealth is a live object's health as the kind's health rule read it. */
export type ResourceHealth = 'Ready' | 'Progressing' | 'Failed' | 'Unknown';

/**
 * AppliedResource is one object a Git object applied on its last successful run, with what the
 * apply did and the object's health then: the first level of the dashboard's resource tree.
 */
export interface AppliedResource {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  /** The live object's uid; the tree finds its children (ReplicaSets, Pods) by it. */
  uid?: string;
  action: 'created' | 'configured' | 'unchanged' | 'skipped';
  health: ResourceHealth;
  /** The health rule's sentence, e.g. "Deployment web has 1 of 3 replicas available". */
  message?: string;
}

/**
 * LiveChild is an object Kubernetes controllers made for an applied object (a ReplicaSet, a Pod),
 * found by owner references in the reconciler's watch data. Never anything but these fields.
 */
export interface LiveChild {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  /** The uid of the owner it hangs under. */
  ownerUid: string;
  health: ResourceHealth;
  /** e.g. "Running, 1/1 ready", "Pending: Unschedulable", "2 of 2 replicas ready". */
  message?: string;
}

/**
 * AppliedVersion says that applying an object whose content hashes to `hash` left the live
 * object at this uid and resourceVersion as Git wants it. While Git and the live object both stay
 * so, the next apply would change nothing, so it is neither dry-run nor applied again; a hand
 * edit changes the resourceVersion, so drift is still found. `warnings` are what the API server
 * said then. Never kept for Secrets (a hash of their data stays out of Redis).
 */
export interface AppliedVersion {
  hash: string;
  uid: string;
  resourceVersion: string;
  warnings?: string[];
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
  /** The unit held sops-encrypted files (see libs/render's decryption). */
  decrypted?: boolean;
}

/**
 * ObjectStatus is what the status store keeps per (cluster, object): enough for the dashboard
 * to show every cluster at once, without any object body or Secret data.
 */
/**
 * DependencyEdge is one object a Git object waits for before it is applied (libs/ordering's
 * Dependency as the status record keeps it, for the dashboard's dependency graph).
 */
export interface DependencyEdge {
  objectKey: string;
  /** `Kind namespace/name`. */
  description: string;
  reason: 'depends-on' | 'sync-wave' | 'namespace' | 'crd' | 'hook';
  /** A depends-on reference that names another source. */
  source?: string;
  /** For a sync-wave edge: the wave waited for. */
  wave?: number;
}

/** DependencyEdges is what an object waits for: the first edges, and how many there are in all (a sync wave can make many). */
export interface DependencyEdges {
  edges: DependencyEdge[];
  total: number;
}

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
  /** What the last successful run applied (the object itself, for a plain manifest), with health. */
  resources?: AppliedResource[];
  /**
   * While not Ready: since when, at this spec (a new spec starts the clock again). The health
   * timeout is measured from it.
   */
  unreadySince?: string;
  /** What the object waits for before it is applied, as its source revision orders it. */
  dependencies?: DependencyEdges;
  /** Things a user should know that are not failures, each a sentence. */
  warnings?: string[];
  /** Per applied object (by inventory id: group/Kind/namespace/name), the version its last apply left; see AppliedVersion. */
  appliedVersions?: Record<string, AppliedVersion>;
  suspended?: boolean;
  updatedAt: string;
  /** The Redis schema version of the release that wrote the record (absent: 1, before versions). */
  schemaVersion?: number;
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
  /** `waiting`: held back by something not ready yet (a dependency, a prune confirmation); never a failure. */
  result: 'succeeded' | 'progressing' | 'waiting' | 'failed' | 'stalled' | 'pruned' | 'skipped';
  stage?: string;
  message?: string;
  changes?: ChangeCounts;
  /** How many runs in a row ended like this one without changing anything (absent: 1). */
  repeats?: number;
  /** When the last of those repeats started. */
  lastAt?: string;
  /** The W3C trace id of the run (of the last repeat), when tracing recorded it: 32 lowercase hex digits. */
  traceId?: string;
}
