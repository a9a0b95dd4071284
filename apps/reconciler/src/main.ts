import { loadConfig } from './config';
import { createLogger } from './logger';
import { startReconciler } from './reconciler';
import { messageOf } from '@tidemark/contracts';

// The reconciler process: read the config once, start, and stop cleanly on SIGTERM or SIGINT.
const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    process.stderr.write(`tidemark: ${messageOf(error)}\n`);
    process.exit(2);
  }
})();
const log = createLogger(config.logLevel);
const reconciler = await startReconciler(config, log).catch((error: unknown) => {
  // Also straight to stderr: the logger may not flush before exit, and this is why the process stopped.
  process.stderr.write(`tidemark could not start: ${messageOf(error)}\n`);
  log.fatal({ err: messageOf(error) }, 'tidemark could not start');
  process.exit(1);
});

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: draining workers');
    void reconciler.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: messageOf(error) }, 'stopping failed');
        process.exit(1);
      },
    );
  });
}
