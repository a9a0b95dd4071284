// startConfigFileReconciler: a reconciler started as the app starts, from a tidemark.yaml written into
// the test's own folder, on the shared rig (its Redis and control plane under the name 'rig').
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

/**
 * startConfigFileReconciler writes `workDir/tidemark.yaml` (the rig's Redis under `prefix`, a Git cache
 * in `workDir`, the shared plane as cluster 'rig', an HTTP port of its own) with `config` on top, and
 * starts the reconciler from it. TIDEMARK_TEST_LOG sets the log level (default error).
 */
export async function startConfigFileReconciler(workDir: string, prefix: string, config: Record<string, unknown>): Promise<RunningReconciler> {
  const path = join(workDir, 'tidemark.yaml');
  await writeFile(path, stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    clusters: [{ name: 'rig', kubeconfig: inject('kubeconfigPath') }],
    http: { port: 0, host: '127.0.0.1' },
    ...config,
  }));
  return startReconciler(loadConfig({ TIDEMARK_CONFIG: path }), createLogger(process.env.TIDEMARK_TEST_LOG ?? 'error'));
}
