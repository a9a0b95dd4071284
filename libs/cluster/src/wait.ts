import { NotReadyError } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { getObject } from './read';

interface CrdStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

/** waitForEstablished polls CRDs until each is Established, then refreshes discovery. */
export async function waitForEstablished(connection: ClusterConnection, crdNames: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(crdNames);
  while (pending.size > 0) {
    for (const name of [...pending]) {
      const crd = (await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })) as CrdStatus | undefined;
      if (crd?.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True')) pending.delete(name);
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      throw new NotReadyError('CrdNotEstablished', `CRDs not Established on ${connection.name} within ${timeoutMs} ms: ${[...pending].join(', ')}`, 5_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  connection.discovery.forget();
}
