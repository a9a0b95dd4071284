import type { ApiClient } from '../api-client';
import { ExitCode } from '../cli-error';
import { printJson, type Output } from '../output';

/** AuditVerdict is GET /api/audit/verify's answer. */
interface AuditVerdict {
  ok: boolean;
  checked: number;
  broken?: { id: string; reason: string };
}

/** AuditLine is the part of an audit record the listing shows. */
interface AuditLine {
  id: string;
  at: string;
  action: string;
  result: string;
  status: number;
  actor: { name: string; role?: string };
  target: { type: string; name: string; cluster?: string };
}

export interface AuditListOptions {
  actor?: string;
  action?: string;
  target?: string;
  result?: string;
  limit?: number;
}

/** auditCommand lists audit records, newest first (GET /api/audit). */
export async function auditCommand(api: ApiClient, output: Output, options: AuditListOptions): Promise<void> {
  const records = await api.get<AuditLine[]>('/audit', { ...options });
  if (output.format === 'json') return printJson(output, records);
  for (const record of records) {
    const target = `${record.target.type} ${record.target.cluster ? `${record.target.cluster}/` : ''}${record.target.name}`;
    output.write(`${record.at}  ${record.actor.name}${record.actor.role ? ` (${record.actor.role})` : ''}  ${record.action}  ${target}  ${record.result} ${record.status}\n`);
  }
}

/**
 * auditVerifyCommand checks the audit chain (GET /api/audit/verify): exit 0 when it holds, 1 with
 * the first record deleted or edited when it does not.
 */
export async function auditVerifyCommand(api: ApiClient, output: Output): Promise<ExitCode> {
  const verdict = await api.get<AuditVerdict>('/audit/verify');
  if (output.format === 'json') printJson(output, verdict);
  else if (verdict.ok) output.write(`The audit chain holds: ${verdict.checked} records checked.\n`);
  else output.write(`The audit chain is broken at record ${verdict.broken?.id ?? '?'}: ${verdict.broken?.reason ?? 'no reason given'} (${verdict.checked} records checked before it).\n`);
  return verdict.ok ? ExitCode.Ok : ExitCode.Failed;
}
