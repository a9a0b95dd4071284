import { Worker } from 'node:worker_threads';
import { caBundleOf, type CertificateState } from './certificate-rotation';
import type { ConversionWebhookOptions } from './conversion-webhook';

/** ThreadOptions are ConversionWebhookOptions without the kinds: the thread converts the default registry's. */
export type ConversionWebhookThreadOptions = Omit<ConversionWebhookOptions, 'kinds' | 'rotation'>;

/** What the thread's entry (webhook-thread-main.ts) receives as workerData. */
export interface ThreadData {
  options: Omit<ConversionWebhookThreadOptions, 'onFailure'>;
  initial: CertificateState;
}

/** Messages between the thread and this side. */
export type ToThread = { certificates: CertificateState } | { stop: true };
export type FromThread = { listening: number } | { failure: string } | { stopped: true } | { startFailed: string };

/**
 * threadEntry is the thread's module: next to the bundle (scripts/build.mjs emits it beside
 * main.js), or the TypeScript source under tsx, loaded with tsx's hooks.
 */
function threadEntry(): { url: URL; execArgv?: string[] } {
  if (import.meta.url.endsWith('.ts')) return { url: new URL('./webhook-thread-main.ts', import.meta.url), execArgv: ['--import', 'tsx'] };
  return { url: new URL('./conversion-webhook-thread.js', import.meta.url) };
}

/**
 * ConversionWebhookThread serves the conversion webhook from a worker thread of its own, with the
 * default kinds' conversions: a busy event loop (a reconciler's pipeline) then no longer delays
 * the API server's reviews, and the reviews take no time from it. The API server converts every
 * write of a multi-version CR for the cache it keeps of each served version, so on first creation
 * that is a review per create and per status write of each WebApp (bench/pipeline counts them).
 * The same surface as ConversionWebhook: start with certificates, useCertificates, caBundle, stop.
 */
export class ConversionWebhookThread {
  private worker: Worker | undefined;
  private state: CertificateState | undefined;
  private stopped: Promise<void> | undefined;

  constructor(private readonly options: ConversionWebhookThreadOptions) {
    if (options.certificateHosts.length === 0) throw new Error('ConversionWebhookThread needs at least one certificate host: the name or IP the API servers call it at');
  }

  /** start runs the thread, which listens with `initial`'s serving certificate; it returns the port. */
  async start(initial: CertificateState): Promise<number> {
    this.state = initial;
    const { onFailure, ...options } = this.options;
    const entry = threadEntry();
    const worker = new Worker(entry.url, { workerData: { options, initial } satisfies ThreadData, ...(entry.execArgv ? { execArgv: entry.execArgv } : {}) });
    this.worker = worker;
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the conversion webhook thread exited with ${code} before it listened`)));
      worker.on('message', (message: FromThread) => {
        if ('listening' in message) resolve(message.listening);
        else if ('startFailed' in message) reject(new Error(message.startFailed));
        else if ('failure' in message) onFailure?.(message.failure);
      });
    }).catch(async (error: unknown) => {
      await worker.terminate();
      this.worker = undefined;
      throw error;
    });
    worker.removeAllListeners('error');
    worker.removeAllListeners('exit');
    // After start, a thread that dies takes the webhook with it: say so through onFailure.
    worker.on('error', (error) => onFailure?.(`the conversion webhook thread failed: ${error.message}`));
    return port;
  }

  /** useCertificates loads certificates rotated elsewhere into the thread's server. */
  useCertificates(state: CertificateState): void {
    this.state = state;
    this.worker?.postMessage({ certificates: state } satisfies ToThread);
  }

  caBundle(): string {
    if (!this.state) throw new Error('ConversionWebhookThread has no certificates yet; call start first');
    return caBundleOf(this.state);
  }

  /** stop closes the server in the thread, then ends the thread. */
  stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return this.stopped ?? Promise.resolve();
    this.stopped = new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate(), 10_000);
      worker.on('message', (message: FromThread) => {
        if ('stopped' in message) void worker.terminate();
      });
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ stop: true } satisfies ToThread);
    });
    return this.stopped;
  }
}
