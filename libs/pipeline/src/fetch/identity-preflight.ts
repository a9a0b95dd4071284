import { applyObject } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { ReconcileRun } from '../run';

/**
 * identityPreflight: under a source's ServiceAccount, every object a kind renders is dry-run first,
 * so an object the ServiceAccount may not write stops the run before any of them is applied
 * (the CR was dry-run by validate, or is created first, before any of them). Nothing is applied
 * half-way for the CR.
 */
export async function identityPreflight(run: ReconcileRun, rendered: readonly KubernetesManifest[]): Promise<void> {
  if (!run.connection.identity || !run.plugin) return;
  for (const object of rendered) await applyObject(run.connection, object, { dryRun: true });
}
