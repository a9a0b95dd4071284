import { NotReadyError, type KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { ApiError } from './api-error';
import { cleanApiMessage } from './api-message';
import { applyToResource, describe } from './apply';
import { sameObject } from './compare';
import { getByResource } from './read';

/** DryRunEntry is what applying one object would do, found by a server-side dry-run: nothing is written. */
export type DryRunEntry =
  | { subject: string; action: 'created' | 'configured' | 'unchanged'; dryRun: KubernetesManifest; live?: KubernetesManifest; warnings?: string[] }
  | { subject: string; action: 'invalid'; message: string; status?: number; reason?: string; live?: KubernetesManifest };

/**
 * dryRunObject asks the API server what server-side apply would make of an object, with
 * `dryRun=All`: admission, the OpenAPI schema and CEL rules all run, and nothing is stored. A
 * refusal is returned as an `invalid` entry with the API server's own message, so a preview
 * lists every object that would fail instead of stopping at the first.
 */
export async function dryRunObject(connection: ClusterConnection, object: KubernetesManifest): Promise<DryRunEntry> {
  const subject = describe(object);
  let live: KubernetesManifest | undefined;
  try {
    const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
    live = await getByResource(connection, resource, resource.namespaced ? object.metadata.namespace : undefined, object.metadata.name);
    const warnings: string[] = [];
    const dryRun = await applyToResource(connection, resource, object, { dryRun: true, warnings });
    const action = !live ? 'created' : sameObject(dryRun, live) ? 'unchanged' : 'configured';
    return { subject, action, dryRun, ...(live ? { live } : {}), ...(warnings.length > 0 ? { warnings: [...new Set(warnings)] } : {}) };
  } catch (error) {
    if (error instanceof ApiError) {
      return { subject, action: 'invalid', message: cleanApiMessage(error.body.message ?? error.message), status: error.status, ...(error.body.reason ? { reason: error.body.reason } : {}), ...(live ? { live } : {}) };
    }
    // Discovery's "kind not served": its CRD is not installed (or arrives with the same change).
    if (error instanceof NotReadyError) return { subject, action: 'invalid', message: error.message };
    throw error;
  }
}
