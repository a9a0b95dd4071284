import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';

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
  sops: Type.Optional(Type.Object({
    /** A file of age identities; mount it from a Secret of the management cluster. */
    ageKeyFile: Type.Optional(Type.String({ minLength: 1 })),
    /** A file of PGP private keys (armored, no passphrase); mount it from a Secret the same way. */
    pgpKeyFile: Type.Optional(Type.String({ minLength: 1 })),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

/** RenderConfig says how units are rendered; validated once at start-up. */
export interface RenderConfig {
  readonly enabled: boolean;
  readonly tools: { readonly kustomize: string; readonly helm: string; readonly sops: string };
  readonly limits: { readonly timeoutMs: number; readonly maxOutputBytes: number; readonly maxMemoryBytes: number };
  readonly concurrency: number;
  readonly sops: { readonly ageKeyFile?: string; readonly pgpKeyFile?: string };
  /** Command renderers, after the built-in ones. */
  readonly plugins: readonly { readonly name: string; readonly markers: readonly string[]; readonly command: readonly string[] }[];
}

/** renderConfig resolves the render section: tool paths, limits (documented defaults) and key files. */
export function renderConfig(input: Static<typeof RenderInput> | undefined, base: string, env: NodeJS.ProcessEnv): RenderConfig {
  const toolsDir = input?.toolsDir ? resolvePath(base, input.toolsDir) : env.TIDEMARK_RENDER_TOOLS_DIR;
  const tool = (name: string) => (toolsDir ? join(toolsDir, name) : onPath(name, env.PATH ?? ''));
  return {
    enabled: input?.enabled ?? true,
    tools: { kustomize: tool('kustomize'), helm: tool('helm'), sops: tool('sops') },
    limits: limitsOf(input),
    concurrency: input?.concurrency ?? 2,
    sops: {
      ...(input?.sops?.ageKeyFile ? { ageKeyFile: resolvePath(base, input.sops.ageKeyFile) } : {}),
      ...(input?.sops?.pgpKeyFile ? { pgpKeyFile: resolvePath(base, input.sops.pgpKeyFile) } : {}),
    },
    plugins: input?.plugins ?? [],
  };
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

function resolvePath(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}
