import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';

const SopsKeyFiles = Type.Object({
  ageKeyFile: Type.Optional(Type.String({ minLength: 1 })),
  pgpKeyFile: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

/** SopsKeyFilesConfig are key files, resolved against the config file's folder. */
export interface SopsKeyFilesConfig {
  readonly ageKeyFile?: string;
  readonly pgpKeyFile?: string;
}

/** RenderInput is the `render` section of tidemark.yaml. */
export const RenderInput = Type.Object({
  /** Render Kustomize and Helm units; false reads every YAML file as a plain manifest. @defaultValue true */
  enabled: Type.Optional(Type.Boolean()),
  /** Folder holding kustomize, helm and sops. @defaultValue TIDEMARK_RENDER_TOOLS_DIR, else each tool from PATH */
  toolsDir: Type.Optional(Type.String({ minLength: 1 })),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1_000, maximum: 600_000 })),
  maxOutputBytes: Type.Optional(Type.Integer({ minimum: 1_024, maximum: 1024 * 1024 * 1024 })),
  maxMemoryBytes: Type.Optional(Type.Integer({ minimum: 64 * 1024 * 1024 })),
  concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  /** Renderers given as commands (like Argo CD's Config Management Plugins): jsonnet, cue, a team's own generator. */
  plugins: Type.Optional(Type.Array(Type.Object({
    name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,30}$' }),
    markers: Type.Array(Type.String({ minLength: 1, pattern: '^[^/]+$' }), { minItems: 1 }),
    command: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  }, { additionalProperties: false }))),
  /** HTTP chart repositories Helm units may take dependencies from, at exact versions (as Chart.yaml names them). */
  chartRepositories: Type.Optional(Type.Array(Type.Object({
    /** https, plain http on a loopback host, or oci://host/path (a registry, pulled with helm); no credentials, query or fragment in it. */
    url: Type.String({ minLength: 1 }),
    /** A CA certificate (PEM) an oci:// registry's certificate may chain to. @defaultValue the system's roots */
    certificateAuthority: Type.Optional(Type.String({ minLength: 1, maxLength: 65_536 })),
    /** A Secret with `username` and `password`, read at each download. @defaultValue cluster: the first cluster */
    secretRef: Type.Optional(Type.Object({
      cluster: Type.Optional(Type.String({ minLength: 1 })),
      namespace: Type.String({ minLength: 1 }),
      name: Type.String({ minLength: 1 }),
    }, { additionalProperties: false })),
  }, { additionalProperties: false }))),
  /** Where verified chart archives are kept, shared by processes and kept across restarts. @defaultValue <cacheDir>/charts */
  chartCacheDir: Type.Optional(Type.String({ minLength: 1 })),
  /** Largest chart archive, as downloaded. @defaultValue 16 MiB */
  maxChartBytes: Type.Optional(Type.Integer({ minimum: 1_024 })),
  /** Largest chart archive once inflated. @defaultValue 64 MiB */
  maxChartUnpackedBytes: Type.Optional(Type.Integer({ minimum: 1_024 })),
  /** Kustomize remote bases (`https://host/org/repo//folder?ref=v1`), fetched by Tidemark's own Git client. */
  remoteBases: Type.Optional(Type.Object({
    /** Hosts remote bases may come from, `host` or `host:port` (lower case); a Source object cannot add any. @defaultValue none: remote bases are refused */
    hosts: Type.Array(Type.String({ pattern: '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?$' }), { maxItems: 256 }),
  }, { additionalProperties: false })),
  sops: Type.Optional(Type.Object({
    /** The operator's age identities file; mount it from a Secret of the management cluster. Used only for `trustedSources`. */
    ageKeyFile: Type.Optional(Type.String({ minLength: 1 })),
    /** The operator's PGP private keys (armored, no passphrase); mount it from a Secret the same way. Used only for `trustedSources`. */
    pgpKeyFile: Type.Optional(Type.String({ minLength: 1 })),
    /**
     * Sources (config-file names, or `<namespace>.<name>` of Source objects) that may use the operator's
     * keys above, and whose units with sops files may be previewed in pull-request comments. @defaultValue none
     */
    trustedSources: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    /** Config-file sources' own key files, by source name; a source decrypts with its own keys only. @defaultValue none */
    sourceKeys: Type.Optional(Type.Record(Type.String({ minLength: 1 }), SopsKeyFiles)),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

/** RenderConfig says how units are rendered; validated once at start-up. */
export interface RenderConfig {
  readonly enabled: boolean;
  readonly tools: { readonly kustomize: string; readonly helm: string; readonly sops: string };
  readonly limits: { readonly timeoutMs: number; readonly maxOutputBytes: number; readonly maxMemoryBytes: number };
  readonly concurrency: number;
  /** The operator's keys (for `trustedSources` only), and config-file sources' own keys by name. */
  readonly sops: SopsKeyFilesConfig & { readonly trustedSources: readonly string[]; readonly sourceKeys: Readonly<Record<string, SopsKeyFilesConfig>> };
  /** Chart repositories, each Secret reference resolved to a registered cluster. */
  readonly chartRepositories: readonly ChartRepositoryConfig[];
  readonly charts: { readonly cacheDir: string; readonly maxArchiveBytes?: number; readonly maxUnpackedBytes?: number };
  /** Hosts Kustomize remote bases may be fetched from; none means remote bases are refused. */
  readonly remoteBaseHosts: readonly string[];
  /** Command renderers, after the built-in ones. */
  readonly plugins: readonly { readonly name: string; readonly markers: readonly string[]; readonly command: readonly string[] }[];
}

/** ChartRepositoryConfig is one chart repository and where its credentials are. */
export interface ChartRepositoryConfig {
  readonly url: string;
  /** A CA certificate (PEM) for an oci:// registry. */
  readonly certificateAuthority?: string;
  readonly secretRef?: { readonly cluster: string; readonly namespace: string; readonly name: string };
}

/** RenderContext is what the render section is resolved against. */
export interface RenderContext {
  /** The config file's folder. */
  base: string;
  env: NodeJS.ProcessEnv;
  cacheDir: string;
  clusters: readonly string[];
  /** The config file's source names. */
  sources: readonly string[];
  /** The error for a mistake in a field of the config file (a ConfigError naming file and field). */
  invalid: (field: string, message: string) => Error;
}

/** renderConfig resolves the render section: tool paths, limits (documented defaults) and key files. */
export function renderConfig(input: Static<typeof RenderInput> | undefined, context: RenderContext): RenderConfig {
  const { base, env } = context;
  const toolsDir = input?.toolsDir ? resolvePath(base, input.toolsDir) : env.TIDEMARK_RENDER_TOOLS_DIR;
  const tool = (name: string) => (toolsDir ? join(toolsDir, name) : onPath(name, env.PATH ?? ''));
  return {
    enabled: input?.enabled ?? true,
    tools: { kustomize: tool('kustomize'), helm: tool('helm'), sops: tool('sops') },
    limits: limitsOf(input),
    concurrency: input?.concurrency ?? 2,
    sops: sopsOf(input, context),
    chartRepositories: (input?.chartRepositories ?? []).map((repository, index) => chartRepository(repository, index, context)),
    charts: chartsOf(input, context),
    plugins: input?.plugins ?? [],
    remoteBaseHosts: Object.freeze([...(input?.remoteBases?.hosts ?? [])]),
  };
}

function sopsOf(input: Static<typeof RenderInput> | undefined, context: RenderContext): RenderConfig['sops'] {
  const sourceKeys = Object.entries(input?.sops?.sourceKeys ?? {}).map(([source, files]) => {
    if (!context.sources.includes(source)) throw context.invalid(`render.sops.sourceKeys.${source}`, `no source in this file is named "${source}"; a Source object gets its keys from spec.decryption.secretRef`);
    if (!files.ageKeyFile && !files.pgpKeyFile) throw context.invalid(`render.sops.sourceKeys.${source}`, 'needs ageKeyFile or pgpKeyFile');
    return [source, keyFilesOf(files, context.base)] as const;
  });
  return { ...keyFilesOf(input?.sops ?? {}, context.base), trustedSources: input?.sops?.trustedSources ?? [], sourceKeys: Object.fromEntries(sourceKeys) };
}

function keyFilesOf(files: Static<typeof SopsKeyFiles>, base: string): SopsKeyFilesConfig {
  return {
    ...(files.ageKeyFile ? { ageKeyFile: resolvePath(base, files.ageKeyFile) } : {}),
    ...(files.pgpKeyFile ? { pgpKeyFile: resolvePath(base, files.pgpKeyFile) } : {}),
  };
}

function chartsOf(input: Static<typeof RenderInput> | undefined, context: RenderContext): RenderConfig['charts'] {
  return {
    cacheDir: input?.chartCacheDir ? resolvePath(context.base, input.chartCacheDir) : join(context.cacheDir, 'charts'),
    ...(input?.maxChartBytes ? { maxArchiveBytes: input.maxChartBytes } : {}),
    ...(input?.maxChartUnpackedBytes ? { maxUnpackedBytes: input.maxChartUnpackedBytes } : {}),
  };
}

type ChartRepositoryInput = NonNullable<Static<typeof RenderInput>['chartRepositories']>[number];

function chartRepository(input: ChartRepositoryInput, index: number, context: RenderContext): ChartRepositoryConfig {
  const problem = chartUrlProblem(input.url);
  if (problem) throw context.invalid(`render.chartRepositories[${index}].url`, problem);
  if (input.certificateAuthority && !input.url.startsWith('oci://')) throw context.invalid(`render.chartRepositories[${index}].certificateAuthority`, 'is for oci:// repositories only');
  const ca = input.certificateAuthority ? { certificateAuthority: input.certificateAuthority } : {};
  if (!input.secretRef) return { url: input.url, ...ca };
  const cluster = input.secretRef.cluster ?? context.clusters[0] ?? '';
  if (!context.clusters.includes(cluster)) throw context.invalid(`render.chartRepositories[${index}].secretRef.cluster`, `no cluster is named "${cluster}"`);
  return { url: input.url, ...ca, secretRef: { cluster, namespace: input.secretRef.namespace, name: input.secretRef.name } };
}

function limitsOf(input: Static<typeof RenderInput> | undefined): RenderConfig['limits'] {
  return {
    timeoutMs: input?.timeoutMs ?? 60_000,
    maxOutputBytes: input?.maxOutputBytes ?? 32 * 1024 * 1024,
    maxMemoryBytes: input?.maxMemoryBytes ?? 1024 * 1024 * 1024,
  };
}

/** onPath finds an executable on PATH; a tool that is missing fails only the units that need it, with a message. */
function onPath(name: string, path: string): string {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return name;
}

/** chartUrlProblem says what is wrong with a chart repository URL, if anything. */
function chartUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not hold credentials; give the repository a secretRef';
  if (url.search || url.hash) return 'must have no query or fragment';
  // An OCI registry is reached by helm over https (its own client; no plain http is offered here).
  if (url.protocol === 'oci:') return url.host ? undefined : 'must name a registry host: oci://host/path';
  const loopback = ['localhost', '[::1]'].includes(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return undefined;
  return 'must use https (plain http only on a loopback host)';
}

function resolvePath(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}
