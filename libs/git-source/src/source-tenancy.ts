import type { SourceAllowList } from '@tidemark/contracts';
import { Type } from '@sinclair/typebox';

const dnsLabel = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';
/** A namespace or cluster pattern: a DNS label with `*` standing for any run of characters. */
const namePattern = Type.String({ pattern: '^[a-z0-9*]([a-z0-9*-]{0,61}[a-z0-9*])?$' });
/** A kind pattern: `Kind` (core group), `group/Kind`, with `*` for any group or any kind. */
const kindPattern = Type.String({ pattern: '^(\\*|([a-z0-9*.-]*/)?([A-Z*][A-Za-z0-9*]*))$' });
/** A ServiceAccount pattern, `namespace/name`, with `*` for any run of characters in either part. */
const serviceAccountPattern = Type.String({ pattern: '^[a-z0-9*]([a-z0-9*-]{0,61}[a-z0-9*])?/[a-z0-9*]([a-z0-9*.-]{0,251}[a-z0-9*])?$' });

/** ServiceAccountInput names the identity a source's objects are applied with, in the target cluster. */
export const ServiceAccountInput = Type.Object({
  namespace: Type.String({ pattern: dnsLabel }),
  name: Type.String({ pattern: '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' }),
}, { additionalProperties: false });

export const AllowInput = Type.Object({
  namespaces: Type.Array(namePattern, { minItems: 1, maxItems: 256 }),
  kinds: Type.Optional(Type.Array(kindPattern, { maxItems: 256 })),
  denyKinds: Type.Optional(Type.Array(kindPattern, { maxItems: 256 })),
  clusterKinds: Type.Optional(Type.Array(kindPattern, { maxItems: 256 })),
  clusters: Type.Optional(Type.Array(namePattern, { minItems: 1, maxItems: 256 })),
  createNamespaces: Type.Optional(Type.Boolean()),
  serviceAccounts: Type.Optional(Type.Array(serviceAccountPattern, { maxItems: 256 })),
}, { additionalProperties: false });

export const VerifyInput = Type.Object({
  /** What must be signed: the head commit, or the annotated tag the source follows. */
  mode: Type.Optional(Type.Union([Type.Literal('head'), Type.Literal('tag')])),
  openpgpKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 65_536 }), { maxItems: 64 })),
  sshKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 16_384 }), { maxItems: 64 })),
}, { additionalProperties: false });

const mebibytes = (maximum: number) => Type.Integer({ minimum: 1, maximum });
export const LimitsInput = Type.Object({
  maxObjectMiB: Type.Optional(mebibytes(1024)),
  maxFetchMiB: Type.Optional(mebibytes(8192)),
  maxRevisionMiB: Type.Optional(mebibytes(4096)),
}, { additionalProperties: false });

/** SourceServiceAccount is a ServiceAccount in the target cluster, used through impersonation. */
export interface SourceServiceAccount {
  readonly namespace: string;
  readonly name: string;
}

/** SourceAllow is a source's allow-list (the type lives in contracts: the pipeline checks it). */
export type SourceAllow = SourceAllowList;

/** SourceVerify: the commit (or tag) a source applies must be signed by one of these keys. */
export interface SourceVerify {
  /** @defaultValue 'head' */
  readonly mode: 'head' | 'tag';
  /** ASCII-armored OpenPGP public keys. */
  readonly openpgpKeys: readonly string[];
  /** SSH public keys as in authorized_keys (`ssh-ed25519 AAAA… comment`). */
  readonly sshKeys: readonly string[];
}

/** SourceLimits are the source's own Git size limits, in bytes: each may only lower the reconciler's; unset ones keep it. */
export interface SourceLimits {
  readonly maxObjectBytes?: number;
  readonly maxFetchBytes?: number;
  readonly maxRevisionBytes?: number;
}

type AllowInputValue = { namespaces: string[]; kinds?: string[]; denyKinds?: string[]; clusterKinds?: string[]; clusters?: string[]; createNamespaces?: boolean; serviceAccounts?: string[] };

export function allowOf(input: AllowInputValue): SourceAllow {
  return Object.freeze({
    namespaces: Object.freeze([...input.namespaces]),
    kinds: Object.freeze([...(input.kinds ?? ['*'])]),
    denyKinds: Object.freeze([...(input.denyKinds ?? [])]),
    clusterKinds: Object.freeze([...(input.clusterKinds ?? [])]),
    clusters: Object.freeze([...(input.clusters ?? ['*'])]),
    createNamespaces: input.createNamespaces ?? false,
    serviceAccounts: Object.freeze([...(input.serviceAccounts ?? [])]),
  });
}

export function verifyOf(input: { mode?: 'head' | 'tag'; openpgpKeys?: string[]; sshKeys?: string[] }): SourceVerify {
  return Object.freeze({
    mode: input.mode ?? 'head',
    openpgpKeys: Object.freeze([...(input.openpgpKeys ?? [])]),
    sshKeys: Object.freeze([...(input.sshKeys ?? [])]),
  });
}

export function limitsOf(input: { maxObjectMiB?: number; maxFetchMiB?: number; maxRevisionMiB?: number }): SourceLimits {
  const bytes = (mib: number | undefined) => (mib === undefined ? undefined : mib * 1024 * 1024);
  const entries = { maxObjectBytes: bytes(input.maxObjectMiB), maxFetchBytes: bytes(input.maxFetchMiB), maxRevisionBytes: bytes(input.maxRevisionMiB) };
  return Object.freeze(Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)));
}
