import { ExitCode } from '../cli-error';
import type { Environment } from '../config';
import type { Output } from '../output';
import { connectCluster, type ClusterTarget } from '../install/apply-install';
import { installChecks, preInstallChecks, printChecks } from '../install/checks';
import { planInstall, type InstallSettings } from '../install/install-manifests';
import { uninstall } from '../install/uninstall';

/** fullnameOf is the chart's name prefix for a release (the chart's tidemark.fullname). */
export function fullnameOf(release: string): string {
  return (release.includes('tidemark') ? release : `${release}-tidemark`).slice(0, 40).replace(/-+$/, '');
}

/** checkCommand runs the checks before an install (--pre, against the rendered plan) or of one; exit 1 when any fails. */
export async function checkCommand(output: Output, env: Environment, options: ClusterTarget & { pre: boolean; settings: InstallSettings }): Promise<ExitCode> {
  const connection = connectCluster(env, options);
  try {
    const results = options.pre
      ? await preInstallChecks(connection, await planInstall(options.settings, env))
      : await installChecks(connection, options.settings.namespace, fullnameOf(options.settings.release));
    return printChecks(results, output.write) ? ExitCode.Ok : ExitCode.Failed;
  } finally {
    connection.close();
  }
}

/** uninstallCommand removes what install made (see uninstall); no install found is not an error. */
export async function uninstallCommand(output: Output, env: Environment, options: ClusterTarget & { namespace: string; release: string; prune: boolean; keepNamespace: boolean }): Promise<ExitCode> {
  const connection = connectCluster(env, options);
  const progress = (line: string) => output.write(`${line}\n`);
  try {
    const result = await uninstall(connection, { namespace: options.namespace, fullname: fullnameOf(options.release), prune: options.prune, keepNamespace: options.keepNamespace }, progress);
    if (!result) {
      progress(`no install of ${fullnameOf(options.release)} in namespace ${options.namespace} (no inventory): nothing to remove`);
      return ExitCode.Ok;
    }
    progress(`deleted ${result.deleted.length} objects; kept ${result.kept.length}${options.prune ? '' : ' (objects Tidemark applied stay: --prune removes them)'}`);
    return ExitCode.Ok;
  } finally {
    connection.close();
  }
}
