// The conversion webhook for a test's own control plane: Tidemark's real webhook on loopback,
// and the CrdConversion that installBuiltinCrds needs to install a multi-version CRD with it.
import { ConversionWebhook, conversionPath, type CrdConversion } from '@tidemark/conversion';
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
