import { podsCommand, workloadActionCommand } from './commands/workloads';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ApiClient } from './api-client';
import { CliError, ExitCode } from './cli-error';
import { loadCliConfig, type CliIo } from './config';
import { colourWanted, parseFormat, type Output } from './output';
import { statusCommand } from './commands/status';
import { getCommand } from './commands/get';
import { describeCommand } from './commands/describe';
import { objectActionCommand, retryCommand, type ObjectVerb } from './commands/actions';
import { previewCommand } from './commands/preview';
import { diffCommand } from './commands/diff';
import { sourceCommand } from './commands/source';
import { sourceActionCommand, sourceVerbOf } from './commands/source-action';
import { freezeCommand, unfreezeCommand } from './commands/freeze';
import { rolloutActionCommand, rolloutStatusCommand } from './commands/rollout';
import type { RolloutCommandVerb as RolloutVerb } from '@tidemark/contracts';
import { auditCommand, auditVerifyCommand } from './commands/audit';
import { installCommand } from './commands/install';
import { agentAclCommand } from './commands/agent-acl';
import { installAgentCommand } from './commands/install-agent';
import { checkCommand, uninstallCommand } from './commands/check';
import { bootstrapGitCommand } from './commands/bootstrap';
import { messageOf, scrubText } from '@tidemark/contracts';
import { loginCommand, logoutCommand, signedOnToken } from './commands/login';

interface GlobalOptions { server?: string; output?: string }

const configHelp = `
The dashboard and its token:
  --server URL, TIDEMARK_SERVER       the dashboard's address (default http://127.0.0.1:8080)
  TIDEMARK_TOKEN, TIDEMARK_TOKEN_FILE  an API token (viewer reads; operator also acts)
  TIDEMARK_CONFIG                      a JSON file {"server", "token" or "tokenFile"};
                                       default ~/.config/tidemark/config.json
  tidemark login                       else single sign-on, kept (mode 0600) in
                                       ~/.config/tidemark/sign-on.json (TIDEMARK_SIGN_ON_FILE)
Exit codes: 0 done, 1 failed, 2 wrong usage or config;
  diff and preview: 0 no changes, 3 changes, 4 an object would be refused.
Colour is used on a terminal only; NO_COLOR turns it off.`;

/** buildProgram is the `tidemark` command and its subcommands; `run` reports how it ended. */
export function buildProgram(io: CliIo, ended: (code: ExitCode) => void): Command {
  const program = new Command('tidemark')
    .description('Tidemark from the command line: status, objects and actions, through the dashboard\'s API.')
    .addOption(new Option('--server <url>', 'the dashboard\'s address (else TIDEMARK_SERVER, the config file, http://127.0.0.1:8080)'))
    .addOption(new Option('-o, --output <format>', 'table (for people) or json (stable, for scripts)').choices(['table', 'json']).default('table'))
    .addHelpText('after', configHelp)
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .exitOverride();

  // A static token (env, file, config) comes first; else the sign-on `tidemark login` stored, refreshed when due.
  const context = async () => {
    const globals = program.opts<GlobalOptions>();
    const loaded = loadCliConfig(io.env, globals.server ? { server: globals.server } : {});
    const signedOn = loaded.token ? undefined : await signedOnToken(io.env, loaded.server);
    const config = signedOn ? { ...loaded, token: signedOn, tokenFrom: 'tidemark login' } : loaded;
    const output: Output = { format: parseFormat(globals.output), colour: colourWanted(io.stdout, io.env), write: (text) => io.stdout.write(text) };
    return { api: new ApiClient({ config }), output };
  };
  const action = <A extends unknown[]>(body: (...args: A) => Promise<void | ExitCode>) => async (...args: A) => {
    ended((await body(...args)) ?? ExitCode.Ok);
  };

  program.command('login').description('Sign in through the dashboard\'s identity provider: a code to confirm on any device where the provider offers it, else a browser on this machine. Kept in ~/.config/tidemark/sign-on.json (mode 0600) and refreshed.')
    .option('--browser', 'use a browser on this machine even where the provider offers device codes')
    .action(action(async (options: { browser?: boolean }) => {
      const { server } = loadCliConfig(io.env, program.opts<GlobalOptions>().server ? { server: program.opts<GlobalOptions>().server as string } : {});
      await loginCommand({ server, env: io.env, tell: (text) => io.stderr.write(text), ...(options.browser ? { browser: true } : {}) });
    }));
  program.command('logout').description('Forget the sign-on of `tidemark login`, revoking its refresh token at the provider.')
    .action(action(async () => {
      await logoutCommand(io.env, (text) => io.stderr.write(text));
    }));

  program.command('status').description('Sources, clusters and objects per state.')
    .action(action(async () => {
      const { api, output } = await context();
      await statusCommand(api, output);
    }));

  program.command('get').description('List objects with their state on each cluster; the filters are the dashboard\'s.')
    .argument('[kind]', 'only this kind (e.g. Deployment, WebApp)')
    .option('-n, --namespace <namespace>', 'only this namespace')
    .option('-c, --cluster <cluster>', 'only objects on this cluster')
    .option('-s, --source <source>', 'only objects declared by this Git source')
    .addOption(new Option('--condition <state>', 'only objects in this state on some cluster').choices(['Ready', 'Reconciling', 'Waiting', 'Stalled', 'Failed', 'Drifted', 'Suspended', 'Unknown']))
    .option('-q, --search <text>', 'names, keys or paths containing this text')
    .option('--page <n>', 'page number', positiveInteger)
    .option('--page-size <n>', 'objects per page (at most 500)', positiveInteger)
    .action(action(async (kind: string | undefined, options: { namespace?: string; cluster?: string; source?: string; condition?: string; search?: string; page?: number; pageSize?: number }) => {
      const { api, output } = await context();
      await getCommand(api, output, { ...options, ...(kind ? { kind } : {}) });
    }));

  program.command('describe').description('One object: conditions, drift, inventory and history, per cluster.')
    .argument('<object>', 'Kind/name, Kind/namespace/name or group/Kind/namespace/name')
    .option('-c, --cluster <cluster>', 'only this cluster')
    .action(action(async (object: string, options: { cluster?: string }) => {
      const { api, output } = await context();
      await describeCommand(api, output, object, options.cluster);
    }));

  program.command('source').description('One Git source: what it follows, the revision it read, and each file it cannot read or warned about, with file and line. With --fetch, --suspend or --resume, acts on it instead (needs an operator token).')
    .argument('<name>', 'the source\'s name, as in tidemark.yaml or its Source object')
    .option('--fetch', 'poll the source now')
    .option('--suspend', 'suspend polling: changes in Git are not read until resumed')
    .option('--resume', 'resume polling, and poll now')
    .action(action(async (name: string, flags: { fetch?: boolean; suspend?: boolean; resume?: boolean }) => {
      const { api, output } = await context();
      const verb = sourceVerbOf(flags);
      await (verb ? sourceActionCommand(api, output, verb, name) : sourceCommand(api, output, name));
    }));

  const verbs: Record<ObjectVerb, string> = {
    reconcile: 'Reconcile an object now, at the revision last attempted; passes a sync window that allows manual syncs.',
    suspend: 'Suspend an object: Tidemark leaves it alone until it is resumed.',
    resume: 'Resume a suspended object and reconcile it now.',
  };
  for (const [verb, description] of Object.entries(verbs) as Array<[ObjectVerb, string]>) {
    program.command(verb).description(`${description} Needs an operator token.`)
      .argument('<object>', 'Kind/name, Kind/namespace/name or group/Kind/namespace/name')
      .option('-c, --cluster <cluster>', 'only this cluster (default: every cluster the object is on)')
      .action(action(async (object: string, options: { cluster?: string }) => {
        const { api, output } = await context();
        await objectActionCommand(api, output, verb, object, options.cluster);
      }));
  }

  const workloadOptions = (command: ReturnType<typeof program.command>) => command
    .argument('<object>', 'the Git object: Kind/name, Kind/namespace/name or group/Kind/namespace/name')
    .option('-c, --cluster <cluster>', 'only this cluster (default: every cluster the object is on)')
    .option('--target <Kind/namespace/name>', 'an object the Git object rendered (a WebApp\'s Deployment), not the Git object itself');
  workloadOptions(program.command('restart').description('Rollout restart of a Deployment, StatefulSet or DaemonSet Tidemark manages (never drift). Needs an operator token.'))
    .action(action(async (object: string, options: { cluster?: string; target?: string }) => {
      const { api, output } = await context();
      await workloadActionCommand(api, output, 'restart', object, options);
    }));
  workloadOptions(program.command('run-job').description('Run a CronJob Tidemark manages now (a Job from its template). Needs an operator token.'))
    .action(action(async (object: string, options: { cluster?: string; target?: string }) => {
      const { api, output } = await context();
      await workloadActionCommand(api, output, 'run-job', object, options);
    }));
  workloadOptions(program.command('pods').description('The Pods of a workload Tidemark manages, the last lines of their logs (scrubbed) and recent Events. Needs an operator token.'))
    .action(action(async (object: string, options: { cluster?: string; target?: string }) => {
      const { api, output } = await context();
      await podsCommand(api, output, object, options);
    }));

  program.command('retry').description('Retry the failed and stalled objects of a cluster, or one object. Needs an operator token.')
    .requiredOption('-c, --cluster <cluster>', 'the cluster')
    .argument('[object]', 'only this object')
    .action(action(async (object: string | undefined, options: { cluster: string }) => {
      const { api, output } = await context();
      await retryCommand(api, output, options.cluster, object);
    }));

  program.command('freeze').description('Freeze a cluster: nothing is applied or pruned there, and drift is not healed, until it is unfrozen; its objects wait with reason ClusterFrozen. Needs an operator token.')
    .argument('<cluster>', 'the cluster')
    .requiredOption('--reason <text>', 'why, shown with who and since when on every object held back')
    .action(action(async (cluster: string, options: { reason: string }) => {
      const { api, output } = await context();
      await freezeCommand(api, output, cluster, options.reason);
    }));
  program.command('unfreeze').description('Lift a cluster\'s freeze; its objects are reconciled at once. Needs an operator token.')
    .argument('<cluster>', 'the cluster')
    .action(action(async (cluster: string) => {
      const { api, output } = await context();
      await unfreezeCommand(api, output, cluster);
    }));

  const rollout = program.command('rollout').description('Rollouts in waves: status, and an operator\'s promote, sync, pause, resume and abort (docs/rollouts.md).');
  rollout.command('status').description('A source\'s rollout (or every source\'s): each wave\'s clusters, their target revision and state, and why it halted.')
    .argument('[source]', 'only this source')
    .action(action(async (source: string | undefined) => {
      const { api, output } = await context();
      await rolloutStatusCommand(api, output, source);
    }));
  const rolloutVerbs: [RolloutVerb, string][] = [
    ['promote', 'Skip the soak or the approval the rollout waits for. Needs an operator token.'],
    ['sync', 'Apply a revision waiting for a manual sync. Needs an operator token.'],
    ['pause', 'Pause the rollout: no wave advances until resumed. Needs an operator token.'],
    ['resume', 'Resume a paused rollout, or try a halted gate once more. Needs an operator token.'],
    ['abort', 'Return every cluster the rollout reached to the last good revision. Needs an operator token.'],
  ];
  for (const [verb, description] of rolloutVerbs) {
    rollout.command(verb).description(description).argument('<source>', 'the source')
      .option('--revision <sha>', 'only if the rollout is still at this revision')
      .action(action(async (source: string, options: { revision?: string }) => {
        const { api, output } = await context();
        await rolloutActionCommand(api, output, verb, source, options.revision);
      }));
  }

  const audit = program.command('audit').description('Who did what: the audit trail, newest first (needs a token not limited to some sources).')
    .option('--actor <name>', 'only records of this actor (a substring)')
    .option('--action <action>', 'only this action, e.g. object.suspend (a substring)')
    .option('--target <target>', 'only this target: a cluster, source or object (a substring)')
    .option('--result <result>', 'ok, denied or error')
    .option('--limit <count>', 'most records shown', positiveInteger, 100)
    .action(action(async (options: { actor?: string; action?: string; target?: string; result?: string; limit: number }) => {
      const { api, output } = await context();
      await auditCommand(api, output, options);
    }));
  audit.command('verify').description('Check the audit chain: exit 1, naming the record, if one was deleted or edited.')
    .action(action(async () => {
      const { api, output } = await context();
      return auditVerifyCommand(api, output);
    }));

  program.command('preview').description('What merging a branch or commit would do on each cluster: a reconciler worker renders it and dry-runs it against the live clusters, writing nothing. Needs an operator token.')
    .argument('<ref>', 'a branch (e.g. feature/login) or a commit id')
    .option('-s, --source <source>', 'the Git source (needed when there are several)')
    .option('--no-wait', 'queue the preview and return; read it later')
    .option('--timeout <seconds>', 'how long to wait for the report', positiveInteger, 300)
    .option('--markdown', 'print the report as the markdown a pull-request comment holds')
    .action(action(async (ref: string, options: { source?: string; wait: boolean; timeout: number; markdown?: boolean }) => {
      const { api, output } = await context();
      return previewCommand(api, output, ref, { ...(options.source ? { source: options.source } : {}), wait: options.wait, timeoutSeconds: options.timeout, markdown: options.markdown ?? false });
    }));

  program.command('diff').description('Compare a local working tree (or a ref of its repository) with what is live on each cluster: the pipeline renders it, the API server dry-runs it, nothing is written. Uses your kubeconfig, not the dashboard.')
    .argument('[directory]', 'a folder of the Git working tree', '.')
    .option('--ref <ref>', 'compare this branch, tag or commit instead of the working tree')
    .option('--path <folder>', 'the source\'s folder inside the repository (as in tidemark.yaml)')
    .option('-s, --source <name>', 'the source\'s name, as in tidemark.yaml', 'local')
    .option('--kubeconfig <file>', 'the kubeconfig (else KUBECONFIG, else ~/.kube/config)')
    .option('--context <context>', 'a kubeconfig context to compare with; repeat for several clusters (default: the current context)', collect, [])
    .option('-l, --label <key=value>', 'a label of the clusters, for Placement rules; repeatable', collect, [])
    .option('--markdown', 'print the report as markdown')
    .action(action(async (directory: string, options: { ref?: string; path?: string; source: string; kubeconfig?: string; context: string[]; label: string[]; markdown?: boolean }) => {
      const { output } = await context();
      return diffCommand(output, io.env, {
        directory, source: options.source, contexts: options.context, labels: parseLabels(options.label), markdown: options.markdown ?? false,
        ...(options.ref ? { ref: options.ref } : {}), ...(options.path ? { path: options.path } : {}), ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
      });
    }));

  const clusterOptions = (command: Command) => command
    .option('--kubeconfig <file>', 'the kubeconfig (else KUBECONFIG, else ~/.kube/config)')
    .option('--context <context>', 'a context of the kubeconfig (default: its current context)')
    .option('-n, --namespace <namespace>', 'the namespace Tidemark runs in', 'tidemark')
    .option('--release <name>', 'the name its objects are named after (as helm\'s release name)', 'tidemark');
  const chartOptions = (command: Command) => command
    .option('-f, --values <file>', 'a values file of the chart (deploy/helm/tidemark/values.yaml lists them); repeatable', collect, [])
    .option('--set <key=value>', 'one chart value, as helm --set; repeatable', collect, [])
    .option('--chart <folder>', 'the chart (default: deploy/helm/tidemark beside this command)')
    .option('--redis-url-file <file>', 'use your Redis: a file holding its redis:// URL (or TIDEMARK_INSTALL_REDIS_URL); its password goes into a Secret');
  type ClusterFlags = { kubeconfig?: string; context?: string; namespace: string; release: string };
  type ChartFlags = { values: string[]; set: string[]; chart?: string; redisUrlFile?: string };
  const target = (flags: ClusterFlags) => ({ ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) });
  const settings = (flags: ClusterFlags & ChartFlags) => ({ namespace: flags.namespace, release: flags.release, valuesFiles: flags.values, set: flags.set, ...(flags.chart ? { chart: flags.chart } : {}) });
  type AgentFlags = { agent?: string; hubRedisUrlFile?: string; hubRedisCa?: string; agentRedisAddress?: string; prefix: string; user?: string; rotate?: boolean };
  const agentInstallOptions = (flags: ClusterFlags & ChartFlags & AgentFlags & { export?: boolean; wait: boolean; timeout: number }) => {
    if (flags.export || flags.redisUrlFile) throw new CliError('InvalidArgument', `--agent takes no ${flags.export ? '--export' : '--redis-url-file'}: the agent uses the hub's Redis (--hub-redis-url-file) as its own user`, ExitCode.Usage);
    return {
      ...settings(flags), ...target(flags), cluster: flags.agent!, prefix: flags.prefix, rotate: flags.rotate ?? false, wait: flags.wait, timeoutSeconds: flags.timeout,
      ...(flags.user ? { user: flags.user } : {}), ...(flags.hubRedisUrlFile ? { hubRedisUrlFile: flags.hubRedisUrlFile } : {}),
      ...(flags.hubRedisCa ? { hubRedisCaFile: flags.hubRedisCa } : {}), ...(flags.agentRedisAddress ? { agentRedisAddress: flags.agentRedisAddress } : {}),
    };
  };

  chartOptions(clusterOptions(program.command('install').description('Install Tidemark into a cluster from its chart: CRDs, RBAC, Redis (or yours), the reconciler and the dashboard, by server-side apply; then wait until they are ready. Uses your kubeconfig.')))
    .option('--export', 'print the manifests instead (no cluster needed; Secrets are named, never printed)')
    .option('--no-wait', 'apply and return without waiting')
    .option('--timeout <seconds>', 'how long to wait until ready', positiveInteger, 300)
    .option('--agent <cluster>', 'install the agent serving this cluster (docs/agents.md): its Redis user on the hub\'s Redis, its Secret and the chart in agent mode in the kubeconfig\'s cluster')
    .option('--hub-redis-url-file <file>', 'with --agent: a file holding the hub Redis\'s admin URL (or TIDEMARK_HUB_REDIS_URL); never printed')
    .option('--hub-redis-ca <file>', 'with --agent: the CA of the hub Redis\'s certificate (PEM), also given to the agent')
    .option('--agent-redis-address <host:port>', 'with --agent: where the agent dials the hub\'s Redis (default: the admin URL\'s)')
    .option('--prefix <prefix>', 'with --agent: the hub\'s redis.prefix', 'tidemark')
    .option('--user <name>', 'with --agent: the agent\'s Redis user (default: agent-<cluster>)')
    .option('--rotate', 'with --agent: give the agent\'s Redis user a new password')
    .action(action(async (flags: ClusterFlags & ChartFlags & AgentFlags & { export?: boolean; wait: boolean; timeout: number }) => {
      const { output } = await context();
      if (flags.agent !== undefined) return installAgentCommand(output, io.env, agentInstallOptions(flags));
      return installCommand(output, io.env, { ...settings(flags), ...target(flags), export: flags.export ?? false, wait: flags.wait, timeoutSeconds: flags.timeout, ...(flags.redisUrlFile ? { redisUrlFile: flags.redisUrlFile } : {}) });
    }));

  program.command('agent-acl').description('Print the Redis ACL SETUSER command for the agent serving one cluster: its own keys read/write, the sources\' records read-only, no KEYS, FLUSHALL or CONFIG, with a new random password. Run it on the hub\'s Redis (a Redis Cluster: every primary). Nothing is sent.')
    .argument('<cluster>', 'the cluster the agent serves, as the hub\'s config names it')
    .option('--prefix <prefix>', 'the hub\'s redis.prefix', 'tidemark')
    .option('--user <name>', 'the agent\'s Redis user (default: agent-<cluster>)')
    .action(action(async (cluster: string, options: { prefix: string; user?: string }) => {
      const { output } = await context();
      await agentAclCommand(output, cluster, { prefix: options.prefix, ...(options.user ? { user: options.user } : {}) });
    }));
  chartOptions(clusterOptions(program.command('check').description('Check an install: Deployments ready, CRDs Established, conversion webhook, Redis, Sources. With --pre, check a cluster before install: version, the rights install needs, conflicting CRDs. Each failure says what to do; exit 1 when one fails.')))
    .option('--pre', 'check before install')
    .action(action(async (flags: ClusterFlags & ChartFlags & { pre?: boolean }) => {
      const { output } = await context();
      return checkCommand(output, io.env, { ...target(flags), pre: flags.pre ?? false, settings: settings(flags) });
    }));

  const bootstrap = program.command('bootstrap').description('Make Tidemark manage itself from Git.');
  chartOptions(clusterOptions(bootstrap.command('git').description('Commit the install\'s manifests and a Source for the same repository and folder to a branch, push, install, and wait until Tidemark reads that commit; from then on an upgrade is a commit. A second run changes nothing and says so. Credentials: TIDEMARK_GIT_USERNAME and TIDEMARK_GIT_PASSWORD (or TIDEMARK_GIT_TOKEN), or --credentials-file; never the command line.')))
    .requiredOption('--url <url>', 'the repository (https://, or http:// to a loopback address; no credentials in it)')
    .requiredOption('--branch <branch>', 'the branch to commit to (made when the repository is empty)')
    .requiredOption('--path <folder>', 'the folder of this cluster, e.g. clusters/dev')
    .option('--credentials-file <file>', 'a JSON file {"username", "password"} (a token is the password)')
    .option('--interval <seconds>', 'how often the Source polls', positiveInteger, 60)
    .option('--no-wait', 'push and apply, then return without waiting')
    .option('--timeout <seconds>', 'how long to wait until Tidemark has read the commit', positiveInteger, 300)
    .action(action(async (flags: ClusterFlags & ChartFlags & { url: string; branch: string; path: string; credentialsFile?: string; interval: number; wait: boolean; timeout: number }) => {
      const { output } = await context();
      return bootstrapGitCommand(output, io.env, {
        ...settings(flags), ...target(flags), url: flags.url, branch: flags.branch, path: flags.path, intervalSeconds: flags.interval, wait: flags.wait, timeoutSeconds: flags.timeout,
        ...(flags.credentialsFile ? { credentialsFile: flags.credentialsFile } : {}), ...(flags.redisUrlFile ? { redisUrlFile: flags.redisUrlFile } : {}),
      });
    }));

  clusterOptions(program.command('uninstall').description('Remove what install made (its inventory, each object proven to be install\'s). Objects Tidemark applied from Git stay, and the CRDs and namespace they need, unless --prune.'))
    .option('--prune', 'also delete every object Tidemark applied, and CRDs with objects left')
    .option('--keep-namespace', 'keep the namespace even if install created it')
    .action(action(async (flags: ClusterFlags & { prune?: boolean; keepNamespace?: boolean }) => {
      const { output } = await context();
      return uninstallCommand(output, io.env, { ...target(flags), namespace: flags.namespace, release: flags.release, prune: flags.prune ?? false, keepNamespace: flags.keepNamespace ?? false });
    }));

  return program;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseLabels(labels: readonly string[]): Record<string, string> {
  return Object.fromEntries(labels.map((label) => {
    const equals = label.indexOf('=');
    if (equals < 1) throw new CliError('UsageInvalid', `--label must be key=value, not "${label.slice(0, 60)}"`, ExitCode.Usage);
    return [label.slice(0, equals), label.slice(equals + 1)];
  }));
}

function positiveInteger(text: string): number {
  const number = Number(text);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a whole number of 1 or more.');
  return number;
}

/** runCli runs the program on argv (without node and the script) and resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let code: ExitCode = ExitCode.Ok;
  const program = buildProgram(io, (ended) => (code = ended));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end "with an error" of exit code 0; usage errors were printed already.
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
    }
    // A message may quote what it was given (an address, a server's answer): scrubbed by the one secret rule.
    if (error instanceof CliError) {
      io.stderr.write(`tidemark: ${scrubText(error.message)}\n`);
      return error.exitCode;
    }
    io.stderr.write(`tidemark: unexpected failure: ${scrubText(messageOf(error))}\n`);
    return ExitCode.Failed;
  }
}
