// The conversion webhook for a test's own control plane: Tidemark's real webhook on loopback,
// and the CrdConversion that installBuiltinCrds needs to install a multi-version CRD with it.
import { ConversionWebhook, ConversionWebhookThread, conversionPath, rotateCertificates, type CrdConversion } from '@tidemark/conversion';
import { createDefaultRegistry, type KindRegistry } from '@tidemark/kinds';

export interface TestConversionWebhook {
  webhook: ConversionWebhook;
  conversion(): CrdConversion;
  stop(): Promise<void>;
}

export async function startTestConversionWebhook(kinds: KindRegistry = createDefaultRegistry()): Promise<TestConversionWebhook> {
  const webhook = new ConversionWebhook({ kinds, host: '127.0.0.1', port: 0, certificateHosts: ['127.0.0.1'] });
  const port = await webhook.start();
  return {
    webhook,
    conversion: () => ({ clientConfig: { url: `https://127.0.0.1:${port}${conversionPath}` }, caBundle: webhook.caBundle() }),
    stop: () => webhook.stop(),
  };
}

/** startTestConversionWebhookThread is the same webhook served from a worker thread (ConversionWebhookThread). */
export async function startTestConversionWebhookThread(): Promise<Omit<TestConversionWebhook, 'webhook'> & { webhook: ConversionWebhookThread }> {
  const webhook = new ConversionWebhookThread({ host: '127.0.0.1', port: 0, certificateHosts: ['127.0.0.1'] });
  const { state } = await rotateCertificates(undefined, ['127.0.0.1'], new Date(), { caValidityMs: 365 * 24 * 3600_000, servingValidityMs: 30 * 24 * 3600_000 });
  const port = await webhook.start(state);
  return {
    webhook,
    conversion: () => ({ clientConfig: { url: `https://127.0.0.1:${port}${conversionPath}` }, caBundle: webhook.caBundle() }),
    stop: () => webhook.stop(),
  };
}
