import type { Renderer } from './renderer';

/**
 * RendererRegistry holds the renderers Tidemark knows, in order of preference: a folder with
 * the markers of two renderers is a unit of the first. Adding a renderer is a new module
 * registered by whoever builds the registry; nothing here names one.
 */
export class RendererRegistry {
  private readonly renderers: Renderer[] = [];

  constructor(renderers: readonly Renderer[] = []) {
    for (const renderer of renderers) this.register(renderer);
  }

  register(renderer: Renderer): this {
    if (this.renderers.some((known) => known.name === renderer.name)) throw new Error(`a renderer named "${renderer.name}" is already registered`);
    this.renderers.push(renderer);
    return this;
  }

  get(name: string): Renderer | undefined {
    return this.renderers.find((renderer) => renderer.name === name);
  }

  /** markerNames lists every marker file name, to spot units in a tree. */
  markerNames(): Set<string> {
    return new Set(this.renderers.flatMap((renderer) => renderer.markers));
  }

  /** unitOf returns the renderer and marker of a folder from its file names, or undefined for a plain folder. */
  unitOf(fileNames: ReadonlySet<string>): { renderer: Renderer; marker: string } | undefined {
    for (const renderer of this.renderers) {
      const marker = renderer.markers.find((name) => fileNames.has(name));
      if (marker) return { renderer, marker };
    }
    return undefined;
  }

  list(): readonly Renderer[] {
    return this.renderers;
  }
}
