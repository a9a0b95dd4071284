import { stableStringify, type KubernetesManifest } from '@tidemark/contracts';
import type { ClusterConnection } from './connection';
import { applyToResource } from './apply';
import { getObject } from './read';
import type { ApiResource } from './resource-path';

interface CrdSchema {
  spec?: { versions?: { name: string; schema?: { openAPIV3Schema?: { properties?: { status?: StatusSchema } } } }[] };
}
interface StatusSchema {
  properties?: Record<string, unknown>;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

const schemaCacheMs = 30_000;
const statusFieldCache = new WeakMap<ClusterConnection, Map<string, { fields: Set<string> | 'any'; at: number }>>();

/**
 * applyStatus server-side applies `status` to an object's /status subresource. It returns
 * false, writing nothing, when the kind has no status subresource (for instance the original
 * ConfigWatcher CRD), so the caller can keep status elsewhere and say why. Fields the CRD's
 * status schema does not declare are left out: server-side apply refuses them. When `object`
 * is the live object and its status already holds exactly these fields with these values, the
 * write is skipped (a steady-state run costs no request): the apply would change nothing.
 * Otherwise it returns the object as it is after the write (the given one when nothing was written).
 */
export async function applyStatus(connection: ClusterConnection, object: KubernetesManifest, status: Record<string, unknown>): Promise<KubernetesManifest | false> {
  const resource = await connection.discovery.resourceFor(object.apiVersion, object.kind);
  if (!resource.hasStatusSubresource) return false;
  const declared = await declaredStatusFields(connection, resource);
  const patch: KubernetesManifest = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name: object.metadata.name, ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}) },
    status: declared === 'any' ? status : Object.fromEntries(Object.entries(status).filter(([field]) => declared.has(field))),
  };
  if (holdsAlready(object, patch.status as Record<string, unknown>)) return object;
  return applyToResource(connection, resource, patch, { subresource: 'status' });
}

/**
 * holdsAlready: the live status has the same fields with the same values (key order aside). A
 * live field the patch leaves out counts as a difference: the apply would remove it.
 */
function holdsAlready(object: KubernetesManifest, status: Record<string, unknown>): boolean {
  const live = object.status;
  if (!live || typeof live !== 'object') return false;
  const defined = Object.fromEntries(Object.entries(status).filter(([, value]) => value !== undefined));
  return stableStringify(live) === stableStringify(defined);
}

/** declaredStatusFields reads the top-level status fields of a CRD's schema (built-in kinds accept any). */
async function declaredStatusFields(connection: ClusterConnection, resource: ApiResource): Promise<Set<string> | 'any'> {
  if (!resource.group.includes('.')) return 'any';
  const name = `${resource.plural}.${resource.group}`;
  let cache = statusFieldCache.get(connection);
  if (!cache) statusFieldCache.set(connection, (cache = new Map()));
  const cached = cache.get(name);
  if (cached && Date.now() - cached.at < schemaCacheMs) return cached.fields;
  const crd = (await getObject(connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })) as CrdSchema | undefined;
  const fields = statusFieldsOf(crd, resource.version);
  cache.set(name, { fields, at: Date.now() });
  return fields;
}

function statusFieldsOf(crd: CrdSchema | undefined, version: string): Set<string> | 'any' {
  const schema = crd?.spec?.versions?.find((entry) => entry.name === version)?.schema?.openAPIV3Schema?.properties?.status;
  if (!schema || schema['x-kubernetes-preserve-unknown-fields']) return 'any';
  return new Set(Object.keys(schema.properties ?? {}));
}
