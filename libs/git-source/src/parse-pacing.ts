import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * ParsePacing makes V8 collect the garbage of parsing before it piles up. The YAML library builds a
 * quoted or block scalar a character or a line at a time, so parsing leaves up to 30 times a file's
 * size in garbage, which V8 collects late: 16 MiB of such files peaked at 410 MiB RSS, or 204 MiB
 * with a collection between files. A full collection is asked for once `bytesBetweenCollections`
 * bytes have been parsed since the last one (a 16 MiB revision: at most 16 of them).
 */
export class ParsePacing {
  private parsedSinceCollection = 0;

  /** @param bytesBetweenCollections bytes parsed before the next collection. @defaultValue 1 MiB: after every large file */
  constructor(private readonly bytesBetweenCollections = 1024 * 1024) {}

  /** parsed counts a parsed file's bytes and, once enough have been parsed, waits for a full collection. */
  async parsed(bytes: number): Promise<void> {
    this.parsedSinceCollection += bytes;
    if (this.parsedSinceCollection < this.bytesBetweenCollections) return;
    this.parsedSinceCollection = 0;
    // Let the event loop turn first: the collection blocks it for as long as it runs.
    await new Promise<void>((done) => setImmediate(done));
    collectGarbage();
  }
}

let fullCollection: (() => void) | undefined;

/**
 * collectGarbage runs a full collection now. V8 gives `gc` only to contexts created while
 * --expose-gc is set, so the flag is set once and one new context lends its `gc` (the way Jest's
 * leak detector gets it). Unlike vm.measureMemory's eager mode, this prints no experimental warning
 * into the reconciler's logs or the CLI's output. A process started with --expose-gc uses its own.
 */
function collectGarbage(): void {
  if (!fullCollection) {
    const own = (globalThis as { gc?: () => void }).gc;
    if (own) fullCollection = own;
    else {
      setFlagsFromString('--expose-gc');
      fullCollection = runInNewContext('gc') as () => void;
    }
  }
  fullCollection();
}
