import type { ClusterConnection } from '@tidemark/cluster';
import { runnable, type Logger, type Runnable } from '@tidemark/contracts';
import type { KindRegistry } from '@tidemark/kinds';
import { MemoryCertificateStore, SecretCertificateStore, type CertificateStore } from './certificate-store';
import { rotateCertificates, type CertificateState, type RotationStep } from './certificate-rotation';
import { ConversionWebhook, conversionPath } from './conversion-webhook';
import { ConversionWebhookThread } from './webhook-thread';
import type { CrdConversion, WebhookClientConfig } from './crd-conversion';
import type { ConversionWebhookConfig } from './webhook-config';

/** RunningConversionWebhook is the started webhook: what the CRDs must say to reach and trust it. */
export interface RunningConversionWebhook {
  /** The address it listens on, host:port. */
  readonly address: string;
  /** conversion is the CRDs' current clientConfig and caBundle. */
  conversion(): CrdConversion;
  /** keepCurrent renews certificates every check interval and calls `publish` (re-apply the CRDs) when the CA bundle to publish changed. */
  keepCurrent(publish: () => Promise<void>): void;
  /** checkNow renews what is due (or `force`s a renewal) and publishes, as each interval does. */
  checkNow(publish: () => Promise<void>, force?: 'ca' | 'serving'): Promise<void>;
  stop(): Promise<void>;
}

/** ConversionWebhookDeps are what the webhook part reads: the kinds it converts, the clusters (for its certificate Secret), the log. */
export interface ConversionWebhookDeps {
  kinds: KindRegistry;
  connectionFor(cluster: string): ClusterConnection;
  log: Pick<Logger, 'info' | 'warn'>;
}

/**
 * createConversionWebhook is the conversion webhook as a part: its certificates are shared
 * through the configured Secret (`settings.secret`), else kept in memory.
 */
export function createConversionWebhook(deps: ConversionWebhookDeps, settings: ConversionWebhookConfig): Runnable<RunningConversionWebhook> {
  return runnable('conversion webhook', () => {
    const secret = settings.secret;
    const store = secret ? new SecretCertificateStore(deps.connectionFor(secret.cluster), secret.namespace, secret.name) : undefined;
    return startConversionWebhook(settings, deps.kinds, deps.log, store);
  });
}

/**
 * startConversionWebhook serves the kinds' conversions over HTTPS with a certificate of its own
 * CA, and says how the API servers reach it: the configured Service or URL, or this process's
 * loopback address for API servers on the same machine.
 */
export async function startConversionWebhook(
  settings: ConversionWebhookConfig,
  kinds: KindRegistry,
  log: Pick<Logger, 'info' | 'warn'>,
  store: CertificateStore = new MemoryCertificateStore(),
): Promise<RunningConversionWebhook> {
  const options = {
    host: settings.host,
    port: settings.port,
    certificateHosts: settings.certificateHosts,
    bodyLimitBytes: settings.maxReviewBytes,
    maxConcurrentReviews: settings.maxConcurrentReviews,
    onFailure: (message: string) => log.warn({ message }, 'a CRD conversion failed'),
  };
  // The thread converts the default kinds' versions (the reconciler's registry); `kinds` here is for the in-loop server.
  const webhook = settings.thread ? new ConversionWebhookThread(options) : new ConversionWebhook({ ...options, kinds });
  const policy = { caValidityMs: settings.caValidityMs, servingValidityMs: settings.servingValidityMs };
  // Rotation goes through the store, so replicas behind one Service serve what one caBundle trusts.
  const renew = async (force?: 'ca' | 'serving'): Promise<{ state: CertificateState; step: RotationStep }> => {
    const stored = await store.load();
    const next = await rotateCertificates(stored.state, settings.certificateHosts, new Date(), policy, force);
    if (next.step === 'none' || await store.save(next.state, stored.version)) return next;
    const theirs = await store.load();
    if (!theirs.state) throw new Error('the conversion webhook certificates were written by another replica and then removed; retrying at the next check');
    return { state: theirs.state, step: 'none' };
  };
  const port = await webhook.start((await renew()).state);
  const clientConfig: WebhookClientConfig = 'loopback' in settings.clientConfig
    ? { url: `https://127.0.0.1:${port}${conversionPath}` }
    : 'url' in settings.clientConfig ? { url: settings.clientConfig.url } : { service: { ...settings.clientConfig.service, path: conversionPath } };
  let timer: NodeJS.Timeout | undefined;
  // The CA bundle the CRDs last got. A check that changed nothing publishes nothing: at steady
  // state that was a read and a dry-run of every built-in CRD per cluster each minute, and a CRD
  // edited by hand is put back by the CRD watch (watchBuiltinCrds), not by this timer.
  let published: string | undefined;
  const check = async (publish: () => Promise<void>, force?: 'ca' | 'serving', always = false) => {
    const { state, step } = await renew(force);
    webhook.useCertificates(state);
    if (step !== 'none') log.info({ step }, 'conversion webhook certificates renewed');
    const caBundle = webhook.caBundle();
    if (!always && step === 'none' && caBundle === published) return;
    await publish();
    published = caBundle;
  };
  let stopped = false;
  return {
    address: `${settings.host}:${port}`,
    conversion: () => ({ clientConfig, caBundle: webhook.caBundle() }),
    checkNow: (publish, force) => check(publish, force, true),
    keepCurrent(publish) {
      const schedule = () => {
        if (stopped) return;
        timer = setTimeout(() => {
          check(publish).catch((error: unknown) => log.warn({ err: String(error) }, 'could not renew the conversion webhook certificates')).finally(schedule);
        }, settings.checkIntervalMs);
      };
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await webhook.stop();
    },
  };
}
