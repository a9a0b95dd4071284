import { measureMemory } from 'node:vm';

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
    await collectGarbage();
  }
}

/**
 * collectGarbage runs a full collection now: vm.measureMemory's 'eager' execution starts one (the only
 * public way without --expose-gc). It is still marked experimental, so Node prints one warning
 * the first time; a failure only means no collection.
 */
async function collectGarbage(): Promise<void> {
  await measureMemory({ mode: 'summary', execution: 'eager' }).catch(() => undefined);
}
