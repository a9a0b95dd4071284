import { open, stat } from 'node:fs/promises';

/** AuditedRequest is what the rig reads of one API server audit event. */
export interface AuditedRequest {
  verb: string;
  /** e.g. /apis/apps/v1/namespaces/a/deployments/web?fieldManager=tidemark&dryRun=All */
  requestURI: string;
  userAgent: string;
  code: number;
  /** The resource, with its subresource: `deployments`, `webapps/status`, `events`. */
  resource: string;
}

/** AuditLogMark is a place in the audit log: readAuditLog reads what came after it. */
export type AuditLogMark = number;

/** markAuditLog remembers where the audit log ends now. */
export async function markAuditLog(path: string): Promise<AuditLogMark> {
  return stat(path).then((info) => info.size, () => 0);
}

/**
 * readAuditLog reads the requests the API server finished after `since` (every request is
 * written once, when its response is complete, and synchronously, so a request that returned
 * is in the file; a last line still being written is left for the next read). `userAgent` keeps only requests whose User-Agent starts with it.
 */
export async function readAuditLog(path: string, since: AuditLogMark = 0, userAgent?: string): Promise<AuditedRequest[]> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const buffer = Buffer.alloc(Math.max(0, size - since));
    await file.read(buffer, 0, buffer.length, since);
    const requests: AuditedRequest[] = [];
    // A line the server is still writing has no newline yet: it is read next time, whole.
    const text = buffer.toString('utf8');
    for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
      if (!line.trim()) continue;
      const event = JSON.parse(line) as { verb?: string; requestURI?: string; userAgent?: string; responseStatus?: { code?: number }; objectRef?: { resource?: string; subresource?: string } };
      if (userAgent && !(event.userAgent ?? '').startsWith(userAgent)) continue;
      const resource = event.objectRef?.resource ? `${event.objectRef.resource}${event.objectRef.subresource ? `/${event.objectRef.subresource}` : ''}` : '';
      requests.push({ verb: event.verb ?? '', requestURI: event.requestURI ?? '', userAgent: event.userAgent ?? '', code: event.responseStatus?.code ?? 0, resource });
    }
    return requests;
  } finally {
    await file.close();
  }
}

/**
 * requestKind names a request the way the benches count them: `get`, `list`, `apply`, `dry-run
 * apply`, `status apply`, `create event`, ….
 */
export function requestKind(request: AuditedRequest): string {
  const dryRun = /[?&]dryRun=/.test(request.requestURI) ? 'dry-run ' : '';
  const apply = request.verb === 'patch' && /[?&]fieldManager=/.test(request.requestURI) ? 'apply' : request.verb;
  const status = request.resource.endsWith('/status') ? 'status ' : '';
  const event = request.resource === 'events' ? ' event' : '';
  return `${dryRun}${status}${apply}${event}`;
}

/** countByKind counts requests by requestKind. */
export function countByKind(requests: readonly AuditedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of requests) counts[requestKind(request)] = (counts[requestKind(request)] ?? 0) + 1;
  return counts;
}

/**
 * appliesByName counts the server-side applies (field-manager PATCHes, not dry-runs) among
 * `requests` whose URI `path` matches, by the name its first group captures: those the API server
 * accepted (2xx), or with `refused`, those it answered otherwise — among them a request whose
 * client was killed mid-request (504), which a later run may send again.
 */
export function appliesByName(requests: readonly AuditedRequest[], path: RegExp, outcome: 'accepted' | 'refused' = 'accepted'): Map<string, number> {
  const applies = new Map<string, number>();
  for (const request of requests) {
    const name = path.exec(request.requestURI)?.[1];
    if (!name || requestKind(request) !== 'apply') continue;
    if ((request.code >= 200 && request.code < 300) !== (outcome === 'accepted')) continue;
    applies.set(name, (applies.get(name) ?? 0) + 1);
  }
  return applies;
}
