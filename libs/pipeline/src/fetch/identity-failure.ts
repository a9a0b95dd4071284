import { TerminalError, type ReconcileFailure } from '@tidemark/contracts';
import type { ReconcileRun } from '../run';

/**
 * identityFailure: the API server refusing a source's ServiceAccount is the source overreaching,
 * not Tidemark lacking a permission, so it stalls (Stalled, reason Forbidden, the API server's
 * message) instead of being retried; a changed object or a retry from the dashboard runs it again.
 */
export function identityFailure(run: ReconcileRun, failure: ReconcileFailure): ReconcileFailure {
  const identity = run.connection.identity;
  if (!identity || failure.code !== 'Forbidden' || failure instanceof TerminalError) return failure;
  const message = failure.message.replace(/ Grant Tidemark's service account this permission; it will be retried\.$/, '');
  const namedBy = run.placedAs ? ` (named by ${run.placedAs.rule})` : '';
  return new TerminalError('Forbidden', `${message} Source ${run.job.source} acts as ${identity}${namedBy} on cluster ${run.job.cluster}, which may not do this; grant that ServiceAccount the permission, or change the object in Git.`, { cause: failure, category: 'forbidden' });
}
