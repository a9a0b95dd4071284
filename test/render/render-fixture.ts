// Shared parts of the render suites: the pinned tools (built by scripts/setup into tools/bin),
// a UnitRenderer on them, and the real binaries run directly for comparison.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { formatObjectKey, groupOf } from '@tidemark/contracts';
import type { CapabilitiesSource, UnitRendering } from '@tidemark/git-source';
import { builtinRenderers, RendererRegistry, UnitRenderer, type ClusterValues, type SopsKeys } from '@tidemark/render';
import { buildRenderTools, run } from '@tidemark/testing';

export const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
export const examplesDir = join(repoRoot, 'examples/argocd-example-apps');

export interface Tools {
  kustomize: string;
  helm: string;
  sops: string;
  ageKeygen: string;
}

/** renderTools builds (when stale) and returns the pinned binaries. */
export async function renderTools(): Promise<Tools> {
  const dir = await buildRenderTools();
  return { kustomize: join(dir, 'kustomize'), helm: join(dir, 'helm'), sops: join(dir, 'sops'), ageKeygen: join(dir, 'age-keygen') };
}

/** rendering returns what a GitSource needs to render units with the real tools. */
export function rendering(tools: Tools, options: { clusters?: ClusterValues[]; sops?: SopsKeys; timeoutMs?: number; maxOutputBytes?: number; capabilities?: CapabilitiesSource } = {}): UnitRendering {
  const renderer = new UnitRenderer({
    registry: new RendererRegistry(builtinRenderers),
    tools: { kustomize: tools.kustomize, helm: tools.helm, sops: tools.sops },
    limits: { ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}) },
  });
  const keys = options.sops;
  // The suite's source is its one source: the keys given are its own.
  const keyring = keys ? { owner: 'suite', howToGiveKeys: 'Give the suite a key.', keys: () => Promise.resolve(keys) } : undefined;
  return { renderer, ...(options.clusters ? { clusters: options.clusters } : {}), ...(keyring ? { keyring } : {}), ...(options.capabilities ? { capabilities: options.capabilities } : {}) };
}

/** kustomizeBuild runs the real `kustomize build` on a folder, as a user would. */
export function kustomizeBuild(tools: Tools, folder: string): Promise<string> {
  return run(tools.kustomize, ['build', folder]);
}

/** helmTemplate runs the real `helm template` on a chart folder, as a user would. */
export async function helmTemplate(tools: Tools, release: string, chart: string, args: string[] = []): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'tidemark-helm-home-'));
  try {
    return await run('env', [`HOME=${home}`, tools.helm, 'template', release, chart, ...args]);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** objectsOf parses a YAML stream into objects by Tidemark's object key. */
export function objectsOf(text: string): Map<string, Record<string, unknown>> {
  const objects = new Map<string, Record<string, unknown>>();
  for (const document of parseAllDocuments(text)) {
    const value = document.toJS() as Record<string, unknown> | null;
    if (!value) continue;
    const metadata = value.metadata as { name: string; namespace?: string };
    objects.set(formatObjectKey({ group: groupOf(String(value.apiVersion)), kind: String(value.kind), namespace: metadata.namespace ?? '', name: metadata.name }), value);
  }
  return objects;
}

/** PgpKey is a PGP key made for one suite with the real gpg, in a GnuPG home of its own. */
export interface PgpKey {
  fingerprint: string;
  /** The private key, armored: what Tidemark gets as render.sops.pgpKeyFile. */
  keyFile: string;
  /** Encrypts a YAML file with the real sops for this key (sops runs gpg for the public key). */
  encrypt(sops: string, plainFile: string): Promise<string>;
  /** Stops the gpg-agent that gpg started for this home. */
  stop(): Promise<void>;
}

/** newPgpKey makes an ed25519/cv25519 key without a passphrase under `dir` (gpg from Debian, installed by scripts/setup). */
export async function newPgpKey(dir: string, name: string): Promise<PgpKey> {
  const home = join(dir, `${name}-gnupg`);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH ?? '', GNUPGHOME: home, HOME: dir };
  const gpg = (args: string[]) => run('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { env });
  await gpg(['--quick-generate-key', `${name} <${name}@tidemark.invalid>`, 'future-default', 'default', 'never']);
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(await gpg(['--list-secret-keys', '--with-colons']))?.[1];
  if (!fingerprint) throw new Error(`gpg made no key in ${home}`);
  const keyFile = join(dir, `${name}.asc`);
  await writeFile(keyFile, await gpg(['--export-secret-keys', '--armor', fingerprint]), { mode: 0o600 });
  return {
    fingerprint,
    keyFile,
    encrypt: (sops, plainFile) => run(sops, ['--encrypt', '--pgp', fingerprint, '--encrypted-regex', '^(data|stringData)$', '--input-type', 'yaml', '--output-type', 'yaml', plainFile], { env }),
    stop: async () => {
      await run('gpgconf', ['--kill', 'all'], { env }).catch(() => undefined);
    },
  };
}
