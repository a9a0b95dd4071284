import type { Logger } from './logger';
import { messageOf } from './errors';

/** Started is what a part's start gives back: its stop, a value that can stop or close, or nothing to undo. */
export type Started = (() => unknown) | { stop(): unknown } | { close(): unknown } | undefined | void;

/**
 * Runnable is one part of a process, built by the library (or app module) that owns it: start
 * brings it up and gives back what later parts use; stop undoes it. An app's wiring is a list of
 * them, started in order and stopped in reverse (Runnables).
 */
export interface Runnable<T = unknown> {
  readonly name: string;
  start(): Promise<T>;
  stop(): Promise<void>;
}

/**
 * runnable makes a Runnable of a start function: what it gives back is stopped by its stop (or
 * close), or called when it is itself the stop. Stop before start, or twice, does nothing.
 */
export function runnable<T extends Started>(name: string, start: () => Promise<T> | T): Runnable<T> {
  let started: { value: T } | undefined;
  return {
    name,
    async start() {
      const value = await start();
      started = { value };
      return value;
    },
    async stop() {
      const value = started?.value;
      started = undefined;
      await stopOf(value);
    },
  };
}

/** idle is a part with nothing to run: the place in the list of a part this role or config leaves out. */
export function idle(name: string): Runnable<undefined> {
  return runnable(name, () => undefined);
}

/**
 * Runnables starts parts one after the other and stops them in reverse: the last started stops
 * first. A part that fails to start is not stopped (its start undoes itself); the caller stops
 * those before it. A failed stop is logged and the next one still runs.
 */
export class Runnables {
  private readonly started: Runnable[] = [];

  constructor(private readonly log: Logger) {}

  /** start starts the part and gives back what it started. */
  async start<T>(part: Runnable<T>): Promise<T> {
    const value = await part.start();
    this.started.push(part);
    return value;
  }

  /** names lists the started parts, in the order they started. */
  get names(): string[] {
    return this.started.map((part) => part.name);
  }

  /** stop stops every started part, last first. */
  async stop(): Promise<void> {
    for (const part of this.started.splice(0).reverse()) {
      await part.stop().catch((error: unknown) => this.log.warn({ part: part.name, err: messageOf(error) }, 'stop step failed'));
    }
  }
}

async function stopOf(value: Started | unknown): Promise<void> {
  if (typeof value === 'function') await value();
  else if (value && typeof value === 'object' && 'stop' in value && typeof value.stop === 'function') await value.stop();
  else if (value && typeof value === 'object' && 'close' in value && typeof value.close === 'function') await value.close();
}
