import type { ChangeSetEntry } from '@tidemark/cluster';
import type { Condition, DriftItem, InventoryEntry, KubernetesManifest } from '@tidemark/contracts';
import type { Health } from '@tidemark/kinds';
import type { KeptObject } from '../prune/guards';
import type { AppliedVersions } from './applied-versions';

/** AppliedObjects is what the apply stage did. */
export interface AppliedObjects {
  /** For a kind, the CR; for a plain manifest, the object: as the cluster holds it after apply. */
  live: KubernetesManifest | undefined;
  /** One entry per rendered object: created, configured, unchanged or skipped (drift reported). */
  changes: ChangeSetEntry[];
  /** The version each object applied, created, configured or unchanged, is live at now (see appliedBefore). */
  versions: AppliedVersions;
  /** What the object owns now, for the next run's prune (a plain manifest is its own: none). */
  inventory: InventoryEntry[];
  /** Drift found on the way: healed (re-applied) and reported (left as it is). */
  drift: { healed: DriftItem[]; reported: DriftItem[] };
  /** What the API server warned about while applying (deprecated apiVersions), each a sentence. */
  warnings: string[];
}

/** KindCondition is a condition a kind reports; the status stage adds generation and transition time. */
export type KindCondition = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

/** KindOutcome is what a kind adds to a run (act stage): its status fields and its own conditions. */
export interface KindOutcome {
  kindStatus: Record<string, unknown>;
  kindConditions: KindCondition[];
}

/**
 * ApplyOutcome is what the apply, prune, act and health stages returned, kept together once
 * they have all run: the status stage, finalize and the observer read it.
 */
export interface ApplyOutcome {
  applied: AppliedObjects;
  /** 'deleted' change-set entries: what left the inventory and was pruned. */
  pruned: ChangeSetEntry[];
  /** What a prune guard kept (orphaned) instead, each with the reason. */
  kept: KeptObject[];
  kind: KindOutcome;
  health: Health;
}
