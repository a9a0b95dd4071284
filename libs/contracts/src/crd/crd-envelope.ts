import { Type, type TSchema } from '@sinclair/typebox';
import type { KubernetesManifest } from '../manifest';
import { crdSchemaOf, type CelRule } from './crd-schema';

const dnsLabel = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';

/** nameIsDnsLabel is the root rule of kinds whose name becomes part of job, key and record names. */
export const nameIsDnsLabel: CelRule = { rule: `self.metadata.name.matches('${dnsLabel}')`, message: 'metadata.name must be a DNS label (lower-case letters, digits and -, at most 63)' };

/** PrinterColumn is one `kubectl get` column. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** CrdVersion is one served version: its whole object as one TypeBox schema, and how kubectl shows it. */
export interface CrdVersion {
  name: string;
  storage: boolean;
  /** The object (apiVersion, kind, metadata, spec, status); crdSchemaOf writes its openAPIV3Schema. */
  schema: TSchema;
  columns?: PrinterColumn[];
  /** True when status is a subresource, written through /status only. */
  statusSubresource?: boolean;
  /** Set for a deprecated version: what kubectl prints for every request. */
  deprecationWarning?: string;
}

/** CrdDeclaration is everything a CRD says; customResourceDefinition writes it in the API's shape. */
export interface CrdDeclaration {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: { kind: string; plural: string; singular: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  versions: CrdVersion[];
  conversion?: Record<string, unknown>;
}

/**
 * customResourceDefinition is the one CRD envelope builder every kind uses: each version's
 * openAPIV3Schema comes from its TypeBox schema through crdSchemaOf, the rest is written as declared.
 */
export function customResourceDefinition(declaration: CrdDeclaration): KubernetesManifest {
  const { group, scope, names, conversion } = declaration;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: {
      group,
      names,
      scope,
      versions: declaration.versions.map((version) => ({
        name: version.name,
        served: true,
        storage: version.storage,
        ...(version.deprecationWarning ? { deprecated: true, deprecationWarning: version.deprecationWarning } : {}),
        ...(version.statusSubresource ? { subresources: { status: {} } } : {}),
        ...(version.columns ? { additionalPrinterColumns: version.columns } : {}),
        schema: { openAPIV3Schema: crdSchemaOf(version.schema) },
      })),
      ...(conversion ? { conversion } : {}),
    },
  };
}

/** KindObjectOptions describe a kind's root object beyond its spec and status. */
export interface KindObjectOptions {
  description?: string;
  apiVersion?: { description: string };
  kind?: { description: string };
  /** CEL rules over the whole object (e.g. nameIsDnsLabel). */
  rules?: CelRule[];
}

/** kindObjectSchema is the root object of a kind with a required spec: apiVersion, kind, metadata, spec and status. */
export function kindObjectSchema<Spec extends TSchema>(spec: Spec, status: TSchema | undefined, options: KindObjectOptions = {}) {
  return Type.Object({
    apiVersion: Type.Optional(Type.String(options.apiVersion)),
    kind: Type.Optional(Type.String(options.kind)),
    metadata: Type.Optional(Type.Object({})),
    spec,
    ...(status ? { status: Type.Optional(status) } : {}),
  }, {
    ...(options.description ? { description: options.description } : {}),
    ...(options.rules ? { 'x-kubernetes-validations': options.rules } : {}),
  });
}

/** NamespacedKind names a namespaced kind of Tidemark's with one served and stored version and a status. */
export interface NamespacedKind {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  version: string;
  /** `kubectl get` columns. */
  columns: PrinterColumn[];
  spec: TSchema;
  status: TSchema;
}

/**
 * namespacedKindCrd is the envelope the Source and Cluster kinds share: namespaced, in the
 * `tidemark` category, one version with a status subresource, a required spec, and a name that must
 * be a DNS label (it becomes part of job, key and record names).
 */
export function namespacedKindCrd(kind: NamespacedKind): KubernetesManifest {
  return customResourceDefinition({
    group: kind.group,
    scope: 'Namespaced',
    names: { kind: kind.kind, listKind: `${kind.kind}List`, plural: kind.plural, singular: kind.singular, shortNames: kind.shortNames, categories: ['tidemark'] },
    versions: [{
      name: kind.version,
      storage: true,
      statusSubresource: true,
      columns: kind.columns,
      schema: kindObjectSchema(kind.spec, kind.status, { rules: [nameIsDnsLabel] }),
    }],
  });
}
