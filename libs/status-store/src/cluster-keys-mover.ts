import { messageOf, moveClusterKeys, type Logger, type RecordKeys, type RedisClient } from '@tidemark/contracts';

export interface ClusterKeysMoverOptions {
  redis: RedisClient;
  keys: RecordKeys;
  log: Logger;
  /** The schema the claim found before this release's (0: none): below 3, an older release may still run. */
  previousSchema: number;
  /** How often a pass runs. @defaultValue 60_000 */
  intervalMs?: number;
  /** How many passes in a row must find nothing an older release wrote before it is taken to be gone. @defaultValue 5 */
  quietPasses?: number;
}

/**
 * ClusterKeysMover moves the records an older release keeps under the deployment's shared tag to
 * their clusters' own tags (moveClusterKeys): a pass at start, then one every interval.
 *
 * While an older release may still run (it wrote since the last quiet passes, or the claim found
 * an older schema), it reads its dependencies' status records under the shared name: a record
 * moved away would read as "not reconciled yet" and its object would wait a full recheck each
 * time an older worker took it. So meanwhile the shared status records stay (merged, newer record
 * wins) and the status store copies each write there (olderReleaseRuns); once the older release
 * is gone they are moved like the rest.
 */
export class ClusterKeysMover {
  private timer: NodeJS.Timeout | undefined;
  private quiet = 0;
  private older: boolean;

  constructor(private readonly options: ClusterKeysMoverOptions) {
    this.older = options.keys.hashTagged && options.previousSchema > 0 && options.previousSchema < 3;
  }

  /** olderReleaseRuns says whether a release that reads the shared names may still run. */
  get olderReleaseRuns(): boolean {
    return this.older;
  }

  /** start runs the first pass (awaited) and schedules the rest; nothing without a hash tag. */
  async start(): Promise<void> {
    if (!this.options.keys.hashTagged) return;
    await this.pass();
    this.timer = setInterval(() => void this.pass().catch((error: unknown) => this.options.log.warn({ err: messageOf(error) }, 'moving records to their clusters\' hash tags failed; trying again')), this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** pass moves once; what an older release wrote since (anything but the kept status records) keeps it counted as running. */
  async pass(): Promise<void> {
    const done = await moveClusterKeys(this.options.redis, this.options.keys, { keepSharedStatus: this.older });
    const written = done.moved + done.changed;
    if (written > 0) this.options.log.info({ ...done }, 'moved records of target clusters to their own hash tags');
    this.quiet = written > 0 ? 0 : this.quiet + 1;
    if (written > 0) this.older = true;
    else if (this.older && this.quiet >= (this.options.quietPasses ?? 5)) {
      this.older = false;
      this.options.log.info({}, 'no older release wrote the shared names lately: its status copies are moved too');
    }
  }
}
