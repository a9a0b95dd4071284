import type { ClusterConnection, ObjectCache } from '@tidemark/cluster';
import type { ClusterFreeze, KubernetesManifest, Logger, RenderUnitRef, SyncWindowPass } from '@tidemark/contracts';
import type { HealthRule, KindRegistry, SourceHealthRules } from '@tidemark/kinds';
import type { PruneHolds, StatusStore } from '@tidemark/status-store';
import type { DriftPolicy, DriftRules } from '@tidemark/drift';
import type { RevisionOrdering } from '@tidemark/ordering';
import type { Tracer } from '@tidemark/tracing';
import type { PipelineObserver } from './observe/observer';
import type { PruneGuard } from './prune/guards';
import type { AllowList } from './fetch/allow-list';
import type { DriftPreventionKeeper } from './gates/drift-prevention';

/** WindowHold is what the pipeline reads of a sync window that holds a cluster for a source (the app computes it with libs/placement's syncWindowHold). */
export interface WindowHold {
  /** `deny window "weekend" until 16:00 Europe/Berlin`: shown on every object it holds. */
  readonly description: string;
  /** Whether an operator's reconcile may pass it. */
  readonly manualSync: boolean;
  /** How long until it may let writes go; undefined when the windows do not say. */
  readonly opensInMs: number | undefined;
}

/** DesiredObject is an object as Git declares it at one revision. */
export interface DesiredObject {
  object: KubernetesManifest;
  /** The file that declares it, relative to the repository root, and its line; for a rendered object its unit's folder. */
  path: string;
  line?: number;
  /** Set for a rendered object: the renderer and the unit's folder (its provenance, with the source and revision). */
  unit?: RenderUnitRef;
  /** Set for a pre-delete hook of a source being deleted: the one kind of object such a source still declares, to run it. */
  retiring?: boolean;
}

/**
 * DesiredStateReader reads an object out of Git at a pinned revision, for one cluster.
 * undefined means the object is not desired there: removed from Git, or not placed on the
 * cluster. An invalid object throws TerminalError.
 */
export interface DesiredStateReader {
  /**
   * admitRevision checks the revision a job names before anything is read: it returns the
   * revision to apply (the job's, or a newer head of the same ref) or throws a TerminalError.
   * Jobs come from Redis, so without it whoever can write Redis chooses the commit. With `cluster`,
   * a source that rolls out in waves admits that cluster's target revision instead (or waits).
   */
  admitRevision?(source: string, revision: string, cluster?: string): Promise<string>;
  readObject(source: string, revision: string, objectKey: string, cluster: string): Promise<DesiredObject | undefined>;
  /**
   * identityAt is the ServiceAccount the Placement rule placing `path` names at that revision (a
   * file, or a render unit's folder ending in '/'), or undefined. Without it, rules name no identity.
   */
  identityAt?(source: string, revision: string, path: string): Promise<PlacedIdentity | undefined>;
  /**
   * orderingAt is the dependency graph of a source revision on a cluster (depends-on, sync waves,
   * CRDs and Namespaces the revision declares), read once per revision. Without it, only a CRD
   * that is not served yet holds an object back.
   */
  orderingAt?(source: string, revision: string, cluster: string): Promise<RevisionOrdering | undefined>;
  /**
   * healthRulesAt is what the HealthRule objects of a source revision declare, compiled once per
   * revision (the refused ones with why). Without it, only the configured and built-in rules judge.
   */
  healthRulesAt?(source: string, revision: string): Promise<SourceHealthRules | undefined>;
  /**
   * retiring: the source is being deleted (a Source object with its finalizer, pruning). It then
   * declares only its pre-delete hooks (marked `retiring`), and its other objects wait for them
   * before they are pruned. Without it, no source is retiring and pre-delete hooks never run.
   */
  retiring?(source: string): boolean;
}

/** PlacedIdentity is the ServiceAccount a Placement rule names for the objects it places, and the rule (for messages). */
export interface PlacedIdentity {
  readonly rule: string;
  readonly serviceAccount: { readonly namespace: string; readonly name: string };
}

/** Declaration is one Git object placed on a cluster, in some source at the revision that source applies now. */
export interface Declaration {
  source: string;
  revision: string;
  objectKey: string;
  object: KubernetesManifest;
  path: string;
  line?: number;
}

/**
 * DeclarationIndex finds the Git objects of every source that may write one live object, so two
 * declarations of it (in one source or two, spelt any way) are found before either is applied.
 */
export interface DeclarationIndex {
  /**
   * named lists every object named `name` that any source places on `cluster`, each source read
   * at the revision it applies now (`pinned` for the run's own source). Unreadable objects are left out.
   */
  named(cluster: string, name: string, pinned: { source: string; revision: string }): Promise<Declaration[]>;
  /**
   * wake asks for a declaration to be reconciled again: another declaration of its live object came
   * or went, or it is a retiring source's pre-delete hook that nothing queued (stage-pre-delete).
   */
  wake(cluster: string, declaration: Pick<Declaration, 'source' | 'revision' | 'objectKey'>): Promise<void>;
}

/** DependencyWaitRegistry records waiting objects and wakes them (libs/ordering's DependencyWaits). */
export interface DependencyWaitRegistry {
  register(cluster: string, token: string, waiter: { source: string; revision: string; objectKey: string }): Promise<void>;
  wake(cluster: string, tokens: readonly string[]): Promise<number>;
}

export interface PipelineOptions {
  /** How often a healthy object is checked again, the safety net behind watches. @defaultValue 300_000 */
  resyncIntervalMs?: number;
  /**
   * A look-again at an object that nothing changed since its last full run (same revision, Ready,
   * every applied object at the resourceVersion its apply left, in the watch cache) runs no stage;
   * a full run (apply dry-run skipped as before, status record and history written) still happens
   * when the last one is older than this, or than a share of it between half and all, fixed per
   * object (fullCheckIntervalFor), so objects applied together are not all due at once. @defaultValue 3_600_000
   */
  fullCheckIntervalMs?: number;
  /** Records written before this time (the process's start) never skip a full run: a new release or config may render differently. @defaultValue none */
  fullCheckAfter?: Date;
  /** How soon an object whose owned objects are not ready yet is checked again. @defaultValue 5_000 */
  progressingRequeueMs?: number;
  /** Namespace for namespaced objects that Git declares without one. @defaultValue 'default' */
  defaultNamespace?: string;
  /** Drift policy per kind; an object's tidemark.dev/drift annotation wins. @defaultValue heal for every kind */
  driftPolicies?: Readonly<Record<string, DriftPolicy>>;
  /** JSON pointers and field managers that are never drift, for every object. */
  driftRules?: DriftRules;
  /**
   * Sources allowed to manage the CRD of a built-in kind, by CRD name. Any other source that
   * declares such a CRD gets a Conflict, and nothing is applied from it. @defaultValue none
   */
  builtinCrdSources?: Readonly<Record<string, readonly string[]>>;
  /**
   * A revision that removes more than `threshold` of a source's objects on a cluster (and at
   * least `minimumObjects`) prunes nothing until confirmed on the dashboard.
   * @defaultValue { threshold: 0.5, minimumObjects: 2 }
   */
  massPrune?: { threshold?: number; minimumObjects?: number };
  /**
   * How soon an object waiting for a dependency looks again by itself: the safety net behind the
   * wake-up its dependency's run or a watch sends. @defaultValue 60_000
   */
  dependencyRecheckMs?: number;
  /**
   * How long an object may take to become Ready before it is Ready=False with HealthCheckFailed
   * (and what waits on it says so); its source's healthTimeoutMs wins, and an object's
   * tidemark.dev/health-timeout annotation over both.
   * @defaultValue 600_000
   */
  healthTimeoutMs?: number;
  /** How soon an object of a frozen cluster looks again by itself: the safety net behind the wake-up that lifting the freeze sends. @defaultValue 60_000 */
  frozenRecheckMs?: number;
  /** How soon an object a sync window holds looks again at most; sooner when the window ends sooner. @defaultValue 300_000 */
  syncWindowRecheckMs?: number;
}

/** PipelineDependencies are everything reconcile talks to, handed in by the reconciler app. */
export interface PipelineDependencies {
  /** connectionFor returns the connection applying with Tidemark's field manager. */
  connectionFor(cluster: string): ClusterConnection;
  /** actionsConnectionFor returns a connection with a second field manager, for a kind's partial patches. */
  actionsConnectionFor(cluster: string): ClusterConnection;
  desired: DesiredStateReader;
  /**
   * tenancyFor returns a source's identity and allow-list. Without it, or for a source with neither,
   * the run acts as the reconciler and nothing is refused before the API server sees it.
   */
  tenancyFor?(source: string): SourceTenancy | undefined;
  /**
   * ownerOf says who wrote a source: the operator (tidemark.yaml) or a tenant (a Source object). A
   * tenant's source may not declare a tidemark.dev Cluster with inCluster or a kubeconfig Secret
   * outside its namespace (checkClusterObjects). @defaultValue every source is the operator's
   */
  ownerOf?(source: string): 'operator' | 'tenant';
  /**
   * Every source's declarations, to refuse two Git objects writing one live object (DuplicateObject).
   * Without it, only the run's own source is asked, and only about namespace spellings.
   */
  declarations?: DeclarationIndex;
  /**
   * healthTimeoutFor is a source's own health timeout (its healthTimeoutMs), read at the run; it
   * wins over options.healthTimeoutMs, an object's annotation over it. @defaultValue none
   */
  healthTimeoutFor?(source: string): number | undefined;
  kinds: KindRegistry;
  /** The health rules, a user's CEL rules before the built-in ones (withHealthRules). @defaultValue the built-in rules */
  healthRules?: readonly HealthRule[];
  statusStore: StatusStore;
  /**
   * cacheFor is a cluster's watch cache (libs/watches keeps it): fetch and apply read live objects
   * from it when it holds them fresh enough. Without it, or for a cluster without one, every read
   * is a GET. @defaultValue no cache
   */
  cacheFor?(cluster: string): ObjectCache | undefined;
  log?: Logger;
  /**
   * freezeOf is a cluster's freeze (readClusterFreeze), read before the run's first write to the
   * cluster. Without it, no cluster is ever frozen.
   */
  freezeOf?(cluster: string): Promise<ClusterFreeze | undefined>;
  /**
   * syncWindowOf is the sync window holding a cluster for a source now, undefined when writes may
   * go; read before the run's first write, after the freeze. Without it, no window ever holds.
   */
  syncWindowOf?(cluster: string, source: string): WindowHold | undefined;
  /** takeWindowPass takes (reads and deletes) an operator's pass for the object (takeSyncWindowPass); without it, no manual sync passes a window. */
  takeWindowPass?(cluster: string, objectKey: string): Promise<SyncWindowPass | undefined>;
  /**
   * driftPolicyFor is a source's default drift policy (its spec.driftPolicy): an object's
   * annotation and its kind's default win over it. @defaultValue heal
   */
  driftPolicyFor?(source: string): DriftPolicy | undefined;
  /** Keeps each cluster's admission policy for objects whose drift is prevented; without it, `prevent` only heals. */
  driftPrevention?: DriftPreventionKeeper;
  /** Mass-prune holds; without it, no share of prunes waits for confirmation. */
  pruneHolds?: PruneHolds;
  /** The guards every delete passes. @defaultValue defaultPruneGuards */
  pruneGuards?: readonly PruneGuard[];
  /** Dependency ordering (depends-on, sync waves, CRDs and Namespaces first); without it, objects go as their jobs come. */
  ordering?: DependencyWaitRegistry;
  /** Told how every run ended, for metrics. */
  observer?: PipelineObserver;
  /** Spans for each run and its stages, under the trace its job carries. @defaultValue noTracing: nothing recorded */
  tracer?: Tracer;
  options?: PipelineOptions;
  now?: () => Date;
}

/** SourceTenancy is what a source's tenancy settings tell the pipeline (SourceSpec.serviceAccount and .allow). */
export interface SourceTenancy {
  /** The ServiceAccount its objects are read, dry-run, applied and pruned as; undefined: the reconciler's own identity. */
  readonly serviceAccount?: { readonly namespace: string; readonly name: string };
  readonly allow?: AllowList;
  /**
   * Why the source may not act at all (a Source object without an identity): every run of its
   * objects is refused (IdentityRequired) before any request, never run as the reconciler.
   */
  readonly refused?: string;
}
