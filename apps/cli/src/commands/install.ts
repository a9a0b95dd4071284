import { readFileSync, statSync } from 'node:fs';
import { CliError, ExitCode } from '../cli-error';
import type { Environment } from '../config';
import type { Output } from '../output';
import { applyInstall, clusterVersion, connectCluster, type ClusterTarget, type InstallResult } from '../install/apply-install';
import { manifestsText, planInstall, type InstallSettings } from '../install/install-manifests';
import { waitUntilReady } from '../install/readiness';

/** InstallOptions: the plan's settings, the cluster, and whether to wait. */
export interface InstallOptions extends Omit<InstallSettings, 'redisUrl'>, ClusterTarget {
  export: boolean;
  wait: boolean;
  timeoutSeconds: number;
  /** A file holding the Redis URL (else TIDEMARK_INSTALL_REDIS_URL); a URL carries a password, so never argv. */
  redisUrlFile?: string;
}

/**
 * installCommand renders the chart with the user's values and either prints the manifests
 * (--export: no cluster needed) or applies them and waits until the workloads are ready, one
 * line per step. A rerun with the same values changes nothing and says so.
 */
export async function installCommand(output: Output, env: Environment, options: InstallOptions): Promise<ExitCode> {
  const redisUrl = redisUrlOf(options.redisUrlFile, env);
  const settings: InstallSettings = { ...options, ...(redisUrl ? { redisUrl } : {}) };
  if (options.export) {
    const plan = await planInstall(settings, env);
    output.write(manifestsText(plan));
    return ExitCode.Ok;
  }
  const progress = (line: string) => output.write(`${line}\n`);
  const connection = connectCluster(env, options);
  try {
    const version = await clusterVersion(connection);
    progress(`cluster ${connection.name}: Kubernetes ${version ?? '(version not stamped: a development build)'}`);
    const kubeVersion = options.kubeVersion ?? version;
    const plan = await planInstall({ ...settings, ...(kubeVersion ? { kubeVersion } : {}) }, env);
    const result = await applyInstall(connection, plan, progress);
    reportChanges(result, progress);
    if (!options.wait) return ExitCode.Ok;
    progress(`waiting up to ${options.timeoutSeconds} s for the workloads to be ready…`);
    const states = await waitUntilReady(connection, result.inventory.objects, options.timeoutSeconds * 1_000, progress);
    const waiting = states.filter((state) => !state.ready);
    if (waiting.length > 0) {
      throw new CliError('NotReady', `not ready after ${options.timeoutSeconds} s: ${waiting.map((state) => state.message).join(' ')} Run \`tidemark check\` for what to do next.`);
    }
    progress(`Tidemark is installed in namespace ${plan.settings.namespace}. Next: tidemark check${options.kubeconfig ? ` --kubeconfig ${options.kubeconfig}` : ''}`);
    if (result.secretsMade.some((name) => name.endsWith('dashboard-auth'))) {
      const name = result.secretsMade.find((made) => made.endsWith('dashboard-auth'));
      progress(`The dashboard's first operator token is in Secret ${plan.settings.namespace}/${name} (key tokens.json); read it with kubectl, it is never printed.`);
    }
    return ExitCode.Ok;
  } finally {
    connection.close();
  }
}

function reportChanges(result: InstallResult, progress: (line: string) => void): void {
  const changed = result.changes.filter((change) => change.action !== 'unchanged').length + result.secretsMade.length;
  progress(changed === 0 ? 'nothing changed: the cluster already holds this install' : `${changed} objects created or changed`);
}

/** Larger than any Redis URL; a bigger file is not one. */
const maxUrlBytes = 4096;

/** redisUrlOf reads the Redis URL from its file, else TIDEMARK_INSTALL_REDIS_URL. */
export function redisUrlOf(file: string | undefined, env: Environment): string | undefined {
  if (!file) return env.TIDEMARK_INSTALL_REDIS_URL || undefined;
  let text: string;
  try {
    if (statSync(file).size > maxUrlBytes) throw new Error(`larger than ${maxUrlBytes} bytes`);
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new CliError('RedisUrlUnreadable', `cannot read the Redis URL file ${file}: ${(error as Error).message}`, ExitCode.Usage);
  }
  if (!text) throw new CliError('RedisUrlUnreadable', `the Redis URL file ${file} is empty`, ExitCode.Usage);
  return text;
}
