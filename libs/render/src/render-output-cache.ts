/** How many bytes of rendered output a renderer keeps, all units together: what one fetch may bring. */
export const defaultRenderCacheBytes = 64 * 1024 * 1024;

/**
 * RenderOutputCache is a Map of renders in progress and done, in the order they were last used,
 * that keeps the done ones within a byte budget: when a render's text arrives, the oldest are
 * dropped until the texts kept fit, and a text larger than the whole budget is not kept at all.
 * The caller's count limit still applies; this bounds the memory, which a count of 512 outputs
 * of up to the revision budget each did not.
 */
export class RenderOutputCache<Output extends { text: string }> extends Map<string, Promise<Output>> {
  private readonly sizes = new Map<string, number>();
  private keptBytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
    if (!Number.isInteger(maxBytes) || maxBytes < 0) throw new Error(`the render cache's byte budget must be a whole number of bytes, not ${maxBytes}`);
  }

  /** bytes is the size of the texts kept now. */
  get bytes(): number {
    return this.keptBytes;
  }

  override set(key: string, output: Promise<Output>): this {
    super.set(key, output);
    output.then((done) => {
      if (this.get(key) === output) this.account(key, Buffer.byteLength(done.text));
    }, () => undefined);
    return this;
  }

  override delete(key: string): boolean {
    this.release(key);
    return super.delete(key);
  }

  override clear(): void {
    this.sizes.clear();
    this.keptBytes = 0;
    super.clear();
  }

  private account(key: string, size: number): void {
    this.release(key);
    if (size > this.maxBytes) {
      super.delete(key);
      return;
    }
    this.sizes.set(key, size);
    this.keptBytes += size;
    for (const oldest of this.keys()) {
      if (this.keptBytes <= this.maxBytes) break;
      if (oldest !== key) this.delete(oldest);
    }
  }

  private release(key: string): void {
    const size = this.sizes.get(key);
    if (size === undefined) return;
    this.sizes.delete(key);
    this.keptBytes -= size;
  }
}
