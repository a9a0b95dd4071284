import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import semver from 'semver';
import { TerminalError } from '@tidemark/contracts';
import { sshKeyProblem } from './ssh-signature';
import { parseSshUrl } from './ssh-url';
import { checkOciSource, OciInput, ociOf, type SourceOci } from './oci-spec';
import {
  AllowInput, LimitsInput, ServiceAccountInput, VerifyInput, allowOf, limitsOf, verifyOf,
  type SourceAllow, type SourceLimits, type SourceServiceAccount, type SourceVerify,
} from './source-tenancy';

export type { SourceAllow, SourceLimits, SourceServiceAccount, SourceVerify } from './source-tenancy';
export type { SourceOci } from './oci-spec';

/**
 * SourceRef says which revision a source follows: exactly one of five selectors. A Git source
 * follows a branch, tag, semver range or commit; an OCI source a tag, semver range or digest.
 */
export const SourceRef = Type.Union([
  Type.Object({ branch: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false }),
  Type.Object({ tag: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false }),
  Type.Object({ semver: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false }),
  Type.Object({ commit: Type.String({ pattern: '^[0-9a-f]{40}$' }) }, { additionalProperties: false }),
  Type.Object({ digest: Type.String({ pattern: '^sha256:[0-9a-f]{64}$', description: 'OCI sources only: one manifest digest.' }) }, { additionalProperties: false }),
]);
export type SourceRef = Static<typeof SourceRef>;

/**
 * SourceAuth holds resolved credentials (the app reads them from a file or the environment).
 * A token is sent as the basic-auth password, which GitHub, GitLab and Gitea all accept.
 */
export const SourceAuth = Type.Union([
  Type.Object({
    token: Type.String({ minLength: 1 }),
    /** @defaultValue 'x-access-token' */
    username: Type.Optional(Type.String({ minLength: 1 })),
  }, { additionalProperties: false }),
  Type.Object({ username: Type.String({ minLength: 1 }), password: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  /** A bearer token: `Authorization: Bearer <token>` (Bitbucket access tokens, some proxies). */
  Type.Object({ bearerToken: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  /** One header as git's `http.extraHeader` takes it, "Name: value" (e.g. "Authorization: Basic …"). */
  Type.Object({ extraHeader: Type.String({ minLength: 3, pattern: '^[A-Za-z0-9-]+:[^\\r\\n]+$' }) }, { additionalProperties: false }),
  /** An SSH deploy key (ed25519, RSA or ECDSA; OpenSSH or PEM) and the known_hosts lines that pin the server's host key. */
  Type.Object({
    sshPrivateKey: Type.String({ minLength: 1 }),
    /** The deploy key's passphrase, when it has one. */
    passphrase: Type.Optional(Type.String({ minLength: 1 })),
    knownHosts: Type.String({ minLength: 1 }),
  }, { additionalProperties: false }),
]);
export type SourceAuth = Static<typeof SourceAuth>;

/**
 * SourceSpecInput is every field of a source as a config file writes it. The Source kind's CRD
 * schema is generated from it (libs/source-objects), so the two ways to declare a source agree.
 */
export const SourceSpecInput = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' }),
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  ref: SourceRef,
  path: Type.Optional(Type.String({ maxLength: 1024 })),
  intervalMs: Type.Integer({ minimum: 1000, maximum: 86_400_000 }),
  jitter: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  auth: Type.Optional(SourceAuth),
  ignoreFile: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  manageBuiltinCrds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 64 })),
  serviceAccount: Type.Optional(ServiceAccountInput),
  allow: Type.Optional(AllowInput),
  verify: Type.Optional(VerifyInput),
  limits: Type.Optional(LimitsInput),
  oci: Type.Optional(OciInput),
  healthTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 86_400_000, description: "How long this source's objects may take to become Ready, in ms; an object's tidemark.dev/health-timeout annotation wins. Default: the reconciler's objectHealth.timeoutMs." })),
  driftPolicy: Type.Optional(Type.Union([Type.Literal('heal'), Type.Literal('report'), Type.Literal('prevent')], { description: "What happens to edits of this source's objects made outside Git: heal (re-apply Git), report, or prevent (refused at admission, and healed). An object's tidemark.dev/drift annotation wins. Default: heal." })),
}, { additionalProperties: false });

/** SourceSpec is one validated, frozen Git source. */
export interface SourceSpec {
  /** DNS-label name; it appears in jobs, keys and the dashboard. */
  readonly name: string;
  /**
   * https, http to a loopback host, ssh:// or scp-like (git@host:org/repo.git), or oci://host/repository
   * for an OCI artifact source; never carries a password or token.
   */
  readonly url: string;
  readonly ref: SourceRef;
  /** Folder inside the repository, normalised without leading/trailing slashes. @defaultValue '.' */
  readonly path: string;
  readonly intervalMs: number;
  /** Fraction of the interval by which each poll is moved at random. @defaultValue 0.1 */
  readonly jitter: number;
  readonly auth?: SourceAuth;
  /** Ignore file (gitignore syntax) at the root of `path`. @defaultValue '.tidemarkignore' */
  readonly ignoreFile: string;
  /**
   * CRDs of built-in kinds (e.g. configwatchers.k8spatterns.com) this source may declare and so
   * replace Tidemark's own; without it such a CRD in Git is a Conflict. @defaultValue []
   */
  readonly manageBuiltinCrds: readonly string[];
  /**
   * The ServiceAccount (in each target cluster) this source's objects are applied, read and pruned
   * as, through impersonation. @defaultValue the reconciler's defaultServiceAccount, else its own identity
   */
  readonly serviceAccount?: SourceServiceAccount;
  /** Namespaces, kinds and clusters this source may reach, checked before any request. @defaultValue no limit */
  readonly allow?: SourceAllow;
  /** Keys one of which must have signed the commit (or tag) applied. @defaultValue no signature needed */
  readonly verify?: SourceVerify;
  /** This source's Git size limits: each may only lower the reconciler's. @defaultValue the reconciler's */
  readonly limits: SourceLimits;
  /**
   * How long this source's objects may take to become Ready (ms), between the reconciler's
   * objectHealth.timeoutMs and an object's tidemark.dev/health-timeout. @defaultValue the reconciler's
   */
  readonly healthTimeoutMs?: number;
  /** The default drift policy of this source's objects; an object's tidemark.dev/drift annotation wins. @defaultValue heal */
  readonly driftPolicy?: 'heal' | 'report' | 'prevent';
  /** Set for an oci:// source: how its registry is reached and its artifacts verified. */
  readonly oci?: SourceOci;
}

/** SourceSpecError is a configuration mistake; its message names the field. */
export class SourceSpecError extends TerminalError {
  constructor(message: string) {
    super('SourceSpecInvalid', message);
    this.name = 'SourceSpecError';
  }
}

/** optionalSettings are the per-source settings that are absent unless set. */
function optionalSettings(input: Static<typeof SourceSpecInput>): Pick<SourceSpec, 'healthTimeoutMs' | 'driftPolicy'> {
  return {
    ...(input.healthTimeoutMs !== undefined ? { healthTimeoutMs: input.healthTimeoutMs } : {}),
    ...(input.driftPolicy !== undefined ? { driftPolicy: input.driftPolicy } : {}),
  };
}

/** parseSourceSpec validates one source from a config file; `where` names it in errors (e.g. "sources[2]"). */
export function parseSourceSpec(input: unknown, where: string): SourceSpec {
  if (!Value.Check(SourceSpecInput, input)) {
    const first = Value.Errors(SourceSpecInput, input).First();
    const field = first?.path ? `${where}${first.path.replaceAll('/', '.')}` : where;
    throw new SourceSpecError(`${field}: ${first?.message ?? 'is not a valid source'}`);
  }
  const location = checkLocation(input, where);
  if ('semver' in input.ref && !semver.validRange(input.ref.semver)) {
    throw new SourceSpecError(`${where}.ref.semver: "${input.ref.semver}" is not a semver range`);
  }
  const path = normalisePath(input.path ?? '.', `${where}.path`);
  const ignoreFile = input.ignoreFile ?? '.tidemarkignore';
  if (ignoreFile.includes('/')) throw new SourceSpecError(`${where}.ignoreFile: must be a file name at the root of path, not "${ignoreFile}"`);
  return Object.freeze({
    name: input.name,
    url: input.url,
    ref: Object.freeze(input.ref),
    path,
    intervalMs: input.intervalMs,
    jitter: input.jitter ?? 0.1,
    ...(input.auth ? { auth: Object.freeze(input.auth) } : {}),
    ignoreFile,
    manageBuiltinCrds: Object.freeze([...(input.manageBuiltinCrds ?? [])]),
    ...optionalSettings(input),
    ...location,
    ...tenancyOf(input, where),
  });
}

/** checkLocation checks the URL and the settings that depend on its kind; an OCI source's are returned. */
function checkLocation(input: Static<typeof SourceSpecInput>, where: string): Pick<SourceSpec, 'oci'> {
  const oci = input.url.startsWith('oci://');
  const ociProblem = oci ? checkOciSource(input, where) : undefined;
  if (ociProblem) throw new SourceSpecError(`${ociProblem.field}: ${ociProblem.message}`);
  if (!oci) checkUrl(input.url, `${where}.url`);
  checkAuthFitsUrl(input, where);
  if (!oci && input.oci) throw new SourceSpecError(`${where}.oci: is for oci:// sources only; this url is a Git repository`);
  if (!oci && 'digest' in input.ref) throw new SourceSpecError(`${where}.ref.digest: is for oci:// sources only; a Git source follows a branch, tag, semver range or commit`);
  return oci ? { oci: ociOf(input.oci) } : {};
}

/** parseSourceSpecs validates the `sources` list of a config file; names must be unique. */
export function parseSourceSpecs(input: unknown, where = 'sources'): SourceSpec[] {
  if (!Array.isArray(input) || input.length === 0) throw new SourceSpecError(`${where}: must be a non-empty list of sources`);
  const specs = input.map((entry: unknown, index) => parseSourceSpec(entry, `${where}[${index}]`));
  const seen = new Set<string>();
  specs.forEach((spec, index) => {
    if (seen.has(spec.name)) throw new SourceSpecError(`${where}[${index}].name: "${spec.name}" is used by another source`);
    seen.add(spec.name);
  });
  return specs;
}

/** tenancyOf reads the source's identity, allow-list, signing keys and limits. */
function tenancyOf(input: Static<typeof SourceSpecInput>, where: string): Pick<SourceSpec, 'serviceAccount' | 'allow' | 'verify' | 'limits'> {
  return {
    ...(input.serviceAccount ? { serviceAccount: Object.freeze({ ...input.serviceAccount }) } : {}),
    ...(input.allow ? { allow: allowOf(input.allow) } : {}),
    ...(input.verify ? { verify: checkedVerify(input.verify, input.ref, `${where}.verify`) } : {}),
    limits: limitsOf(input.limits ?? {}),
  };
}

function checkedVerify(input: Parameters<typeof verifyOf>[0], ref: SourceRef, field: string): SourceVerify {
  const verify = verifyOf(input);
  if (verify.openpgpKeys.length + verify.sshKeys.length === 0) throw new SourceSpecError(`${field}: name at least one key in openpgpKeys or sshKeys`);
  verify.openpgpKeys.forEach((key, index) => {
    if (!key.includes('-----BEGIN PGP PUBLIC KEY BLOCK-----')) throw new SourceSpecError(`${field}.openpgpKeys[${index}]: must be an ASCII-armored OpenPGP public key`);
  });
  verify.sshKeys.forEach((key, index) => {
    if (!/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521) [A-Za-z0-9+/=]+( .*)?$/.test(key.trim())) {
      throw new SourceSpecError(`${field}.sshKeys[${index}]: must be an SSH public key line ("ssh-ed25519 AAAA… comment")`);
    }
    const problem = sshKeyProblem(key);
    if (problem) throw new SourceSpecError(`${field}.sshKeys[${index}]: ${problem}`);
  });
  // Only a tag or semver source follows a tag; a branch or a pinned commit has none to check.
  if (verify.mode === 'tag' && !('tag' in ref || 'semver' in ref)) throw new SourceSpecError(`${field}.mode: tag needs a source that follows a tag (ref.tag or ref.semver); use mode head for a branch or a commit`);
  return verify;
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

function checkUrl(text: string, field: string): void {
  const ssh = parseSshUrl(text);
  if (ssh && 'problem' in ssh) throw new SourceSpecError(`${field}: the SSH URL ${ssh.problem}`);
  if (ssh) return;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SourceSpecError(`${field}: "${text.slice(0, 80)}" is not a URL`);
  }
  if (url.username || url.password) {
    throw new SourceSpecError(`${field}: must not contain credentials; put them in auth (read from a file or the environment)`);
  }
  const loopback = loopbackHosts.has(url.hostname) || url.hostname.startsWith('127.');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new SourceSpecError(`${field}: must use https (plain http is allowed only for loopback hosts), got ${url.protocol}//${url.host}`);
  }
}

/** checkAuthFitsUrl refuses a deploy key for an https URL and a token or password for an SSH one. */
function checkAuthFitsUrl(input: Static<typeof SourceSpecInput>, where: string): void {
  if (!input.auth) return;
  if (input.url.startsWith('oci://')) {
    if ('sshPrivateKey' in input.auth || 'extraHeader' in input.auth) throw new SourceSpecError(`${where}.auth: an OCI registry logs in with a username and password (or token), or a registry bearer token; not a deploy key or an extra header`);
    return;
  }
  const sshKey = 'sshPrivateKey' in input.auth;
  if (parseSshUrl(input.url) && !sshKey) throw new SourceSpecError(`${where}.auth: an SSH URL authenticates with a deploy key and known_hosts (sshPrivateKey, knownHosts), not a token or password`);
  if (!parseSshUrl(input.url) && sshKey) throw new SourceSpecError(`${where}.auth: a deploy key needs an ssh:// or scp-like URL (git@host:org/repo.git); this one is not`);
}

function normalisePath(path: string, field: string): string {
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..')) throw new SourceSpecError(`${field}: must stay inside the repository, got "${path}"`);
  return parts.length === 0 ? '.' : parts.join('/');
}
