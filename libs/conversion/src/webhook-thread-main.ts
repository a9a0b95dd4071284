// The conversion webhook's worker thread (see ConversionWebhookThread): Tidemark's ConversionWebhook
// with the default kinds, started with the certificates it is given, told of new ones by message.
import { parentPort, workerData } from 'node:worker_threads';
import { messageOf } from '@tidemark/contracts';
import { createDefaultRegistry } from '@tidemark/kinds';
import { ConversionWebhook } from './conversion-webhook';
import type { FromThread, ThreadData, ToThread } from './webhook-thread';

const port = parentPort;
if (!port) throw new Error('webhook-thread-main runs as a worker thread of ConversionWebhookThread');
const { options, initial } = workerData as ThreadData;
const send = (message: FromThread) => port.postMessage(message);
const webhook = new ConversionWebhook({ ...options, kinds: createDefaultRegistry(), onFailure: (message) => send({ failure: message }) });
port.on('message', (message: ToThread) => {
  if ('certificates' in message) webhook.useCertificates(message.certificates);
  else void webhook.stop().then(() => send({ stopped: true }));
});
webhook.start(initial).then((listening) => send({ listening }), (error: unknown) => send({ startFailed: `the conversion webhook could not listen: ${messageOf(error)}` }));
