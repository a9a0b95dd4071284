import type { ObjectStatus } from '../status';
import type { SourceStatus } from './source-status';

/**
 * revisionFor is the one answer to "at which revision is a woken object reconciled": its
 * source's newest fetched revision (so an object just pruned, or moved off a cluster, stays so),
 * else the last one its source delivered, else the one its status record last attempted or
 * applied from that same source. undefined when nothing says.
 */
export function revisionFor(source: Pick<SourceStatus, 'head' | 'revision'>, record?: Pick<ObjectStatus, 'source' | 'lastAttemptedRevision' | 'lastAppliedRevision'>, sourceName?: string): string | undefined {
  const fromSource = source.head ?? source.revision;
  if (fromSource) return fromSource;
  if (!record || (sourceName !== undefined && record.source !== sourceName)) return undefined;
  return record.lastAttemptedRevision ?? record.lastAppliedRevision;
}
