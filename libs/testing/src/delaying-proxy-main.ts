// Runs a delaying proxy in a process of its own, so its timers do not share an event loop with
// the code under test: `node --import tsx delaying-proxy-main.ts <targetPort> <delayMs>`.
// Prints the port; a message {delayMs} from the parent changes the delay.
import { startDelayingProxy } from './delaying-proxy';

const [targetPort, delayMs] = process.argv.slice(2).map(Number);
const proxy = await startDelayingProxy(targetPort!, delayMs ?? 0);
process.on('message', (message: { delayMs?: number }) => {
  if (typeof message.delayMs === 'number') proxy.setDelay(message.delayMs);
});
process.on('disconnect', () => void proxy.stop().then(() => process.exit(0)));
process.stdout.write(`${proxy.port}\n`);
