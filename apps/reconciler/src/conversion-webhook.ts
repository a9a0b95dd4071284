import type { Logger } from 'pino';
import { ConversionWebhook, conversionPath, type CrdConversion, type WebhookClientConfig } from '@tidemark/conversion';
import type { KindRegistry } from '@tidemark/kinds';
import type { ConversionWebhookConfig } from './config';

/** RunningConversionWebhook is the started webhook: what the CRDs must say to reach and trust it. */
export interface RunningConversionWebhook {
  /** The address it listens on, host:port. */
  readonly address: string;
  /** conversion is the CRDs' current clientConfig and caBundle. */
  conversion(): CrdConversion;
  /** keepCurrent renews certificates every check interval, then calls `publish` (re-apply the CRDs). */
  keepCurrent(publish: () => Promise<void>): void;
  /** checkNow renews what is due (or `force`s a renewal) and publishes, as each interval does. */
  checkNow(publish: () => Promise<void>, force?: 'ca' | 'serving'): Promise<void>;
  stop(): Promise<void>;
}

/**
 * startConversionWebhook serves the kinds' conversions over HTTPS with a certificate of its own
 * CA, and says how the API servers reach it: the configured Service or URL, or this process's
 * loopback address for API servers on the same machine.
 */
export async function startConversionWebhook(settings: ConversionWebhookConfig, kinds: KindRegistry, log: Pick<Logger, 'info' | 'warn'>): Promise<RunningConversionWebhook> {
  const webhook = new ConversionWebhook({
    kinds,
    host: settings.host,
    port: settings.port,
    certificateHosts: settings.certificateHosts,
    rotation: { caValidityMs: settings.caValidityMs, servingValidityMs: settings.servingValidityMs },
    onFailure: (message) => log.warn({ message }, 'a CRD conversion failed'),
  });
  const port = await webhook.start();
  const clientConfig: WebhookClientConfig = 'loopback' in settings.clientConfig
    ? { url: `https://127.0.0.1:${port}${conversionPath}` }
    : 'url' in settings.clientConfig ? { url: settings.clientConfig.url } : { service: { ...settings.clientConfig.service, path: conversionPath } };
  let timer: NodeJS.Timeout | undefined;
  const check = async (publish: () => Promise<void>, force?: 'ca' | 'serving') => {
    const step = await webhook.rotate(new Date(), force);
    if (step !== 'none') log.info({ step }, 'conversion webhook certificates renewed');
    await publish();
  };
  let stopped = false;
  return {
    address: `${settings.host}:${port}`,
    conversion: () => ({ clientConfig, caBundle: webhook.caBundle() }),
    checkNow: (publish, force) => check(publish, force),
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
