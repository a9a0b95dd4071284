import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterValues } from './cluster-values';
import { defaultInputLimits, readInputTree, writeInputTree, type InputLimits, type InputTree, type WrittenFile } from './materialise';
import { InputsCache, planUnits, type PlannedUnit, type UnitPlan } from './plan-units';
import { RenderFailure } from './render-failure';
import { defaultRenderCacheBytes, RenderOutputCache } from './render-output-cache';
import { renderWarnings } from './render-warnings';
import type { RemoteBaseFetcher } from './kustomize/remote-base';
import type { Renderer, RenderTools } from './renderer';
import type { RendererRegistry } from './renderer-registry';
import type { RepoReader } from './repo-reader';
import { BlobCache, RepoView, TreeCache } from './repo-view';
import { defaultSandboxLimits, sandboxLauncher, type SandboxLimits } from './sandbox';
import type { SandboxLauncher } from './sandbox-launcher';
import { decryptInPlace, scrubSecrets, type SopsKeyring } from './sops/decrypt-sops';
import { refuseDecryptedOutsideSecrets } from './sops/decrypted-values-placement';
import { findSopsFiles } from './sops/sops-files';
import { UnitCopies } from './unit-copies';
import { parseUnitConfig, unitConfigFile, type UnitConfig } from './unit-config';
import { messageOf, type ClusterCapabilities } from '@tidemark/contracts';

export interface UnitRendererOptions {
  registry: RendererRegistry;
  tools: Readonly<RenderTools>;
  /** Limits of one renderer run; unset fields keep `defaultSandboxLimits`. */
  limits?: Partial<SandboxLimits>;
  /** Limits of one unit's input tree; unset fields keep `defaultInputLimits`. */
  inputLimits?: Partial<InputLimits>;
  /** Where input trees are written while a unit renders. @defaultValue the system's temporary folder */
  workDir?: string;
  /** Renders run at once in this process. @defaultValue 2 */
  concurrency?: number;
  /** Rendered outputs kept by input digest. @defaultValue 512 */
  cacheSize?: number;
  /** Bytes of rendered output kept, all units together. @defaultValue 64 MiB */
  cacheBytes?: number;
  /**
   * Units whose written input tree is kept between renders (under workDir), so a render writes
   * only the files whose blob changed; units with sops files always get a fresh tree.
   * @defaultValue 256; 0 writes a fresh tree for every render
   */
  keptCopies?: number;
}

/** RenderToolRun is one run of a unit's tool in the render sandbox: ids and names only. */
export interface RenderToolRun {
  /** The renderer's name (kustomize, helm, a plugin's). */
  tool: string;
  /** The unit's folder in the repository. */
  folder: string;
  revision: string;
  /** The cluster it renders for, when it renders per cluster. */
  cluster?: string;
}

/** RenderObserver wraps each run of a unit's tool in the sandbox (a trace span, say); a render from the output cache runs no tool. */
export type RenderObserver = <T>(run: RenderToolRun, body: () => Promise<T>) => Promise<T>;

/** UnitRenderOptions say for whom a unit renders: a cluster's values, and the keys of the unit's own source. */
export interface UnitRenderOptions {
  cluster?: ClusterValues;
  /** The target cluster's discovery, handed to a renderer that reads it. */
  capabilities?: ClusterCapabilities;
  /** The unit's source's sops keys. @defaultValue none: an encrypted file fails its unit */
  keyring?: SopsKeyring;
  /** Fetches the Kustomize remote bases of the unit's source. @defaultValue none: a remote base fails its unit */
  remoteBases?: RemoteBaseFetcher;
  /** Wraps the tool's run in the sandbox. @defaultValue none */
  observe?: RenderObserver;
}

/** RenderedUnit is a unit's output: a YAML stream of Kubernetes objects. */
export interface RenderedUnit {
  text: string;
  /** The unit's config, read at the same revision. */
  config: UnitConfig;
  /** What the tool warned about while it succeeded (see renderWarnings); no decrypted value, no temporary path. */
  warnings: string[];
  /** Did the unit hold sops-encrypted files? Whatever is derived from it must not reach readers outside its source. */
  decrypted: boolean;
}

/**
 * UnitRenderer plans and renders units. A render writes the unit's input folders from the Git
 * object store into a fresh temporary tree, decrypts sops files there, runs the renderer in the
 * sandbox and removes the tree. Outputs are kept by input digest (and cluster values), so a
 * unit whose files did not change is never rendered twice in this process.
 */
export class UnitRenderer {
  private readonly trees = new TreeCache();
  private readonly inputs = new InputsCache();
  private readonly blobs = new BlobCache();
  private readonly copies: UnitCopies | undefined;
  private readonly outputs: RenderOutputCache<RenderedUnit>;
  private readonly limits: SandboxLimits;
  private readonly inputLimits: InputLimits;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  // Made at the first render (it asks whether the kernel allows network namespaces), stopped by close.
  private launcher: SandboxLauncher | undefined;
  private closed = false;

  constructor(private readonly options: UnitRendererOptions) {
    this.limits = { ...defaultSandboxLimits, ...options.limits };
    this.inputLimits = { ...defaultInputLimits, ...options.inputLimits };
    this.outputs = new RenderOutputCache(options.cacheBytes ?? defaultRenderCacheBytes);
    const keptCopies = options.keptCopies ?? 256;
    if (!Number.isInteger(keptCopies) || keptCopies < 0) throw new Error(`keptCopies must be a whole number of units, not ${keptCopies}`);
    this.copies = keptCopies > 0 ? new UnitCopies(this.workDir(), keptCopies) : undefined;
  }

  /** close stops the sandboxes started ahead and removes the kept input trees; renders after it start cold and write fresh trees again. */
  async close(): Promise<void> {
    this.closed = true;
    this.launcher?.close();
    await this.copies?.close();
  }

  get registry(): RendererRegistry {
    return this.options.registry;
  }

  /** view reads one revision by path, sharing this renderer's tree cache. */
  view(reader: RepoReader, revision: string): RepoView {
    return new RepoView(reader, revision, this.trees, this.options.registry, this.blobs);
  }

  plan(view: RepoView, sourcePath: string, markerPaths: Iterable<string>): Promise<UnitPlan> {
    return planUnits(this.options.registry, view, sourcePath, markerPaths, this.inputs);
  }

  /**
   * render renders a unit at the view's revision, for one cluster when given, decrypting with the
   * keys of the unit's source only; it throws a RenderFailure. Outputs are kept per source, so a
   * unit another source copied byte for byte never gets an output decrypted with another key.
   */
  render(view: RepoView, reader: RepoReader, unit: PlannedUnit, options: UnitRenderOptions = {}): Promise<RenderedUnit> {
    if (unit.failure) return Promise.reject(unit.failure);
    const { cluster, keyring, remoteBases, capabilities } = options;
    // A remote base is fetched with its source's credentials: one source never gets another's output of it.
    const key = [unit.digest, cluster ? clusterKey(cluster) : '', capabilities ? capabilitiesKey(capabilities) : '', keyring?.owner ?? '', remoteBases?.owner ?? ''].join('\0');
    let output = this.outputs.get(key);
    if (output) {
      this.outputs.delete(key);
    } else {
      output = this.limited(() => this.renderFresh(view, reader, unit, options));
      output.catch(() => this.outputs.delete(key));
    }
    this.outputs.set(key, output);
    if (this.outputs.size > (this.options.cacheSize ?? 512)) {
      const oldest = this.outputs.keys().next().value;
      if (oldest !== undefined) this.outputs.delete(oldest);
    }
    return output;
  }

  /** readsCapabilities tells whether a unit's output depends on the target cluster's discovery (see Renderer.readsCapabilities). */
  readsCapabilities(unit: PlannedUnit): boolean {
    return this.options.registry.get(unit.renderer)?.readsCapabilities === true;
  }

  /** configOf reads a unit's tidemark-render.yaml at the view's revision. */
  async configOf(view: RepoView, folder: string): Promise<UnitConfig> {
    const path = folder === '.' ? unitConfigFile : `${folder}/${unitConfigFile}`;
    return parseUnitConfig(await view.readText(path), path);
  }

  private async renderFresh(view: RepoView, reader: RepoReader, unit: PlannedUnit, options: UnitRenderOptions): Promise<RenderedUnit> {
    const renderer = this.options.registry.get(unit.renderer);
    if (!renderer) throw new RenderFailure('RenderFailed', `${unit.folder}: no renderer named ${unit.renderer} is registered`);
    // The unit's config and input files are read and checked from the Git object store first;
    // nothing is written before every check passed.
    const [config, inputs] = await Promise.all([this.configOf(view, unit.folder), readInputTree(view, [unit.folder, ...unit.inputs], this.inputLimits)])
      .catch((error: unknown) => { throw located(error, unit, '', []); });
    const run = { renderer, unit, config, revision: view.revision, ...options };
    // Decrypted files must be gone when the render returns: a unit with sops files gets a fresh tree.
    const kept = this.copies && !hasSopsFiles(inputs) ? await this.copies.checkout(`${unit.renderer}\0${unit.folder}`, inputs).catch((error: unknown) => { throw located(error, unit, '', []); }) : undefined;
    if (kept) {
      try {
        return await this.runRenderer(run, kept.work, kept.written);
      } finally {
        void kept.release();
      }
    }
    const work = await mkdtemp(join(this.workDir(), 'tidemark-render-'));
    let written: WrittenFile[] | undefined;
    try {
      [written] = await Promise.all([writeInputTree(inputs, join(work, 'repo')), mkdir(join(work, 'scratch'))]);
      return await this.runRenderer(run, work, written);
    } catch (error) {
      throw located(error, unit, work, []);
    } finally {
      // Decrypted files are gone before the render returns; other trees are removed in the background.
      const removed = rm(work, { recursive: true, force: true });
      if (written && findSopsFiles(written).length > 0) await removed;
      else removed.catch(() => undefined);
    }
  }

  /** runRenderer decrypts the sops files of a written input tree under `work`, then runs the renderer there. */
  private async runRenderer(run: { renderer: Renderer; unit: PlannedUnit; config: UnitConfig; revision: string } & UnitRenderOptions, work: string, written: readonly WrittenFile[]): Promise<RenderedUnit> {
    const { renderer, unit, config, cluster, keyring, remoteBases, capabilities, observe } = run;
    const root = join(work, 'repo');
    const scratch = join(work, 'scratch');
    let secrets: string[] = [];
    const encrypted = findSopsFiles(written);
    try {
      if (encrypted.length > 0) {
        secrets = await decryptInPlace(encrypted, { sops: this.options.tools.sops, keyring, scratch, limits: this.limits, launcher: this.sandboxes() });
      }
      const tool = () => renderer.render({
        folder: unit.folder, marker: unit.marker, root, scratch, config, tools: this.options.tools, limits: this.limits, launcher: this.sandboxes(),
        ...(cluster ? { cluster } : {}),
        ...(remoteBases ? { remoteBases } : {}),
        inputFiles: written,
        ...(capabilities && renderer.readsCapabilities ? { capabilities } : {}),
      });
      const toolRun = { tool: unit.renderer, folder: unit.folder, revision: run.revision, ...(cluster ? { cluster: cluster.name } : {}) };
      const { text, stderr } = observe ? await observe(toolRun, tool) : await tool();
      if (encrypted.length > 0) refuseDecryptedOutsideSecrets(text, secrets, unit.folder);
      return { text, config, warnings: renderWarnings(stderr ?? '', (line) => scrubbed(line, work, secrets)), decrypted: encrypted.length > 0 };
    } catch (error) {
      throw located(error, unit, work, secrets);
    }
  }

  /** sandboxes is the launcher of this renderer's runs: as many sandboxes wait as renders run at once. */
  private sandboxes(): SandboxLauncher | undefined {
    if (this.closed) return undefined;
    this.launcher ??= sandboxLauncher(this.options.concurrency ?? 2);
    return this.launcher;
  }

  private workDir(): string {
    return this.options.workDir ?? tmpdir();
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    while (this.running >= (this.options.concurrency ?? 2)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

/** located turns any failure into a RenderFailure whose message uses repository paths and holds no decrypted value. */
function located(error: unknown, unit: PlannedUnit, work: string, secrets: readonly string[]): RenderFailure {
  const failure = error instanceof RenderFailure ? error : new RenderFailure('RenderFailed', `${unit.folder}: ${messageOf(error)}`);
  const message = scrubbed(failure.message, work, secrets);
  const line = failure.line ?? lineOf(message);
  return new RenderFailure(failure.code, message, failure.file ?? unit.folder, line);
}

/** scrubbed is a tool's text without decrypted values, and with repository paths instead of the temporary tree's. */
function scrubbed(text: string, work: string, secrets: readonly string[]): string {
  if (!work) return scrubSecrets(text, secrets);
  return scrubSecrets(text, secrets).split(`${work}/repo/`).join('').split(`${work}/scratch/`).join('').split(work).join('<render>');
}

/** hasSopsFiles tells whether any input file is sops-encrypted, before anything is written. */
function hasSopsFiles(tree: InputTree): boolean {
  return findSopsFiles(tree.files.map((file) => ({ path: file.path, absolute: file.path, bytes: file.bytes }))).length > 0;
}

/** lineOf picks "line N" or "file:N" out of a renderer's message, when it gives one. */
function lineOf(message: string): number | undefined {
  const match = /\bline (\d+)\b/.exec(message) ?? /\.ya?ml:(\d+)/.exec(message);
  return match?.[1] ? Number(match[1]) : undefined;
}

function clusterKey(cluster: ClusterValues): string {
  const sorted = (record: Readonly<Record<string, string>>) => Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify([cluster.name, sorted(cluster.labels), sorted(cluster.variables)])).digest('base64url');
}

function capabilitiesKey(capabilities: ClusterCapabilities): string {
  return createHash('sha256').update(JSON.stringify(capabilities)).digest('base64url');
}
