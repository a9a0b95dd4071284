import type { SandboxLimits, SandboxOutput } from './sandbox';
import type { SandboxLauncher } from './sandbox-launcher';
import type { UnitConfig } from './unit-config';
import type { ClusterValues } from './cluster-values';
import type { RemoteBaseFetcher } from './kustomize/remote-base';
import type { ClusterCapabilities } from '@tidemark/contracts';

/** UnitRepo is what a renderer may read while it finds a unit's inputs: files and folders at one revision. */
export interface UnitRepo {
  /** readText returns a file's text (repository path), or undefined when there is none. */
  readText(path: string): Promise<string | undefined>;
  /** isFolder tells whether a repository path is a folder. */
  isFolder(path: string): Promise<boolean>;
  /** list returns the names in a folder (files and folders), empty when there is no such folder. */
  list(folder: string): Promise<string[]>;
  /** markerIn returns the file of `renderer` that makes a folder a unit (e.g. kustomization.yaml), if it has one. */
  markerIn(folder: string, renderer: string): Promise<string | undefined>;
}

/** RenderTools are the absolute paths of the pinned binaries. */
export interface RenderTools {
  kustomize: string;
  helm: string;
  sops: string;
  /** Further tools by name, for renderers added later. */
  [name: string]: string;
}

/** RenderJob is one render of a unit whose input tree is written under `root`. */
export interface RenderJob {
  /** The unit's folder, relative to the repository root. */
  folder: string;
  /** The file that made it a unit. */
  marker: string;
  /** The repository root, written from Git (only the unit's input folders). */
  root: string;
  /** An empty folder for HOME, caches and files the renderer generates. */
  scratch: string;
  config: UnitConfig;
  /** The target cluster's values, when the unit is rendered per cluster. */
  cluster?: ClusterValues;
  /** The target cluster's discovery, for a renderer that reads it (readsCapabilities). */
  capabilities?: ClusterCapabilities;
  tools: Readonly<RenderTools>;
  limits: SandboxLimits;
  /** Sandboxes started ahead, to hand to runSandboxed; a run without one starts its sandbox cold. */
  launcher?: SandboxLauncher;
  /** The input files written under `root` (absolute path and bytes as written). @defaultValue unknown: a renderer that needs them walks `root` */
  inputFiles?: ReadonlyArray<{ absolute: string; bytes: Uint8Array }>;
  /** Fetches Kustomize remote bases for the unit's source. @defaultValue none: a remote base fails the unit */
  remoteBases?: RemoteBaseFetcher;
}

/**
 * Renderer turns one kind of render unit into Kubernetes objects (a YAML stream). It is a
 * plugin: the registry finds units by its marker files, asks it which other folders a unit
 * reads, writes those folders out of Git, then asks it to render. Plain manifests need no renderer.
 */
export interface Renderer {
  /** A short name shown with every rendered object ('kustomize', 'helm'). */
  readonly name: string;
  /** File names that make their folder a unit of this renderer, in order of preference. */
  readonly markers: readonly string[];
  /**
   * inputs returns the folders, besides the unit's own, that rendering reads (repository paths,
   * transitively). It throws a RenderFailure for a reference that cannot be rendered here (a
   * remote base, a path out of the repository).
   */
  inputs(folder: string, marker: string, repo: UnitRepo): Promise<string[]>;
  /**
   * standsAlone tells whether the folder can be rendered on its own; a kustomize Component cannot
   * (it only patches the kustomization that lists it), so it is never a unit. Absent means yes.
   */
  standsAlone?(folder: string, marker: string, repo: UnitRepo): Promise<boolean>;
  /**
   * readsCapabilities tells whether the output depends on the target cluster's discovery (Helm's
   * `.Capabilities`, a chart's kubeVersion); such a unit renders once per distinct answer. Absent means no.
   */
  readonly readsCapabilities?: boolean;
  /** nested tells whether units found inside this unit's folder belong to it (a chart's `charts/`). */
  readonly ownsNestedUnits: boolean;
  render(job: RenderJob): Promise<RenderOutput>;
}

/** RenderOutput is a successful render: the YAML stream, and what the tool wrote to standard error (its warnings). */
export interface RenderOutput {
  text: string;
  stderr?: string;
}

/** renderOutputOf is a sandboxed tool's successful run as a render: standard output is the stream. */
export function renderOutputOf({ stdout, stderr }: SandboxOutput): RenderOutput {
  return { text: stdout, stderr };
}
