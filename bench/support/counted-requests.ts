// Request counts as the API server saw them: its audit log, kept only for Tidemark's User-Agent.
import { kubeUserAgent } from '@tidemark/cluster';
import { countByKind, markAuditLog, readAuditLog, type ControlPlane } from '@tidemark/testing';

/** RequestCount is what one measured phase sent, in all and by kind (`apply`, `get`, `dry-run apply`, …). */
export interface RequestCount {
  total: number;
  byKind: Record<string, number>;
}

/** countedRequests runs `work` and counts the requests Tidemark sent meanwhile (the plane needs `auditLog`). */
export async function countedRequests<T>(plane: ControlPlane, work: () => Promise<T>): Promise<{ result: T; count: RequestCount }> {
  if (!plane.auditLogPath) throw new Error(`control plane ${plane.name} was started without auditLog; requests cannot be counted`);
  const mark = await markAuditLog(plane.auditLogPath);
  const result = await work();
  const requests = await readAuditLog(plane.auditLogPath, mark, kubeUserAgent);
  return { result, count: { total: requests.length, byKind: countByKind(requests) } };
}

/** perObject divides a count by the number of objects it was for, to one decimal. */
export function perObject(count: RequestCount, objects: number): { total: number; byKind: Record<string, number> } {
  const per = (value: number) => Math.round((value / objects) * 10) / 10;
  return { total: per(count.total), byKind: Object.fromEntries(Object.entries(count.byKind).map(([kind, value]) => [kind, per(value)])) };
}
