import type { TSchema } from '@sinclair/typebox';
import type { Condition, KubernetesManifest } from '@tidemark/contracts';

// KubernetesManifest lives in contracts (libs/cluster needs it too); kinds re-export it.
export type { KubernetesManifest };

/** Health is what a kind's health rule says about a live object. */
export interface Health {
  status: 'Ready' | 'Progressing' | 'Failed';
  /** A sentence a user can act on, e.g. "Deployment web has 1 of 3 replicas available". */
  message: string;
}

/**
 * ClusterActions is the small read-and-act surface a kind may use while reconciling
 * (ConfigWatcher reads a ConfigMap and restarts pods). The pipeline implements it on top of
 * libs/cluster; kinds never talk to Kubernetes directly.
 */
export interface ClusterActions {
  get(apiVersion: string, kind: string, namespace: string, name: string): Promise<KubernetesManifest | undefined>;
  list(apiVersion: string, kind: string, namespace: string, labelSelector?: Record<string, string>): Promise<KubernetesManifest[]>;
  delete(object: KubernetesManifest): Promise<void>;
  /**
   * applyPatch server-side applies a partial object. It must use a field manager other than
   * the one that applies rendered objects: under the same manager, applying a partial object
   * would release (and so delete) every field the full apply owns.
   */
  applyPatch(object: KubernetesManifest): Promise<void>;
}

/** RenderContext is what render gets: the validated, defaulted CR and its live status. */
export interface RenderContext<Spec> {
  object: KubernetesManifest & { spec: Spec };
  /** Enabled feature ids, in registration order, as decided by the features stage. */
  features: readonly string[];
}

/** ActionContext is given to kinds that act on the cluster beyond applying objects. */
export interface ActionContext<Spec, Status> {
  object: KubernetesManifest & { spec: Spec };
  /** The kind-specific status recorded by the last successful run ({} the first time). */
  previousStatus: Partial<Status>;
  cluster: ClusterActions;
  /** The time of this run; passed in so act() stays deterministic and testable. */
  now: Date;
}

/** ActionResult is a kind's own status fields and conditions after acting. */
export interface ActionResult<Status> {
  status: Partial<Status>;
  conditions?: Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>[];
}

/**
 * KindPlugin is how a kind joins Tidemark: it registers its group/version/kind, its CRD,
 * its defaults, its features, its render function and its health rule. Adding a kind is a
 * new folder plus one registration; no existing file changes.
 */
export interface KindPlugin<Spec = unknown, Status = Record<string, unknown>> {
  group: string;
  version: string;
  kind: string;
  plural: string;
  /** The CRD Tidemark installs when a cluster does not have one. */
  crd: KubernetesManifest;
  /**
   * servedVersions lists every version the CRD serves, `version` (the storage version) first;
   * the registry finds the plugin under each. Absent: `version` alone.
   */
  servedVersions?: readonly string[];
  /** convert returns the object in another served version (pure); Tidemark's conversion webhook serves it. */
  convert?(object: KubernetesManifest, toApiVersion: string): KubernetesManifest;
  /** specOf reads the spec the other hooks take from an object of any served version. Absent: `object.spec`. */
  specOf?(object: KubernetesManifest): Spec;
  /**
   * The TypeBox type of the spec that the functions below rely on; the registry's
   * parseCustomResource checks a CR against it before any of them sees it. @defaultValue no check
   */
  specType?: TSchema;
  /** applyDefaults returns the spec with kind-specific defaults filled in (pure). */
  applyDefaults(spec: Spec): Spec;
  /** enabledFeatures lists feature ids this object turns on (the features stage). */
  enabledFeatures(spec: Spec): string[];
  /** render returns the owned objects (pure). It throws TerminalError on a feature conflict. */
  render(context: RenderContext<Spec>): KubernetesManifest[];
  /** act does what a kind does besides applying objects (ConfigWatcher's restarts). Optional. */
  act?(context: ActionContext<Spec, Status>): Promise<ActionResult<Status>>;
  /**
   * observeStatus derives kind-specific status fields from the live owned objects after
   * apply (WebApp's readyReplicas from its Deployment). Pure. Optional.
   */
  observeStatus?(owned: readonly KubernetesManifest[]): Partial<Status>;
  /** ConfigMaps etc. whose changes should wake this object (ConfigWatcher's spec.configMap). */
  referencedObjects?(object: KubernetesManifest & { spec: Spec }): { apiVersion: string; kind: string; namespace: string; name: string }[];
  /** The kinds referencedObjects can name, so Tidemark knows what to watch. Required with it. */
  referencedKinds?: readonly { apiVersion: string; kind: string }[];
}
