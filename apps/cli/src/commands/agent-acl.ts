import { randomBytes } from 'node:crypto';
import { CliError, ExitCode } from '../cli-error';
import { printJson, type Output } from '../output';

/** AgentAclOptions: the hub's Redis prefix and the agent's user name. */
export interface AgentAclOptions {
  /** The hub's `redis.prefix`. */
  prefix: string;
  /** @defaultValue `agent-<cluster>` */
  user?: string;
}

/**
 * agentAclCommand prints the `ACL SETUSER` command that creates the Redis user of the agent serving
 * one cluster (agentAclRule: its own keys only), with a new random password of letters and digits
 * (the chart's agent Secret takes it as it is). Run it on the hub's Redis (each primary of a Redis
 * Cluster, or `ACL SAVE` with an ACL file); nothing is sent anywhere by this command.
 */
export async function agentAclCommand(output: Output, cluster: string, options: AgentAclOptions): Promise<void> {
  // Loaded here: the queue library brings BullMQ, which no other command needs.
  const { agentAclRule, InvalidQueueOptionsError } = await import('@tidemark/queue');
  let rule: string[];
  try {
    rule = agentAclRule(cluster, { prefix: options.prefix, hashTag: true });
  } catch (error) {
    if (error instanceof InvalidQueueOptionsError) throw new CliError('InvalidArgument', error.message, ExitCode.Usage);
    throw error;
  }
  const user = options.user ?? `agent-${cluster}`;
  const password = randomBytes(24).toString('hex');
  if (output.format === 'json') return printJson(output, { user, password, rule });
  output.write(`ACL SETUSER ${user} on >${password} ${rule.join(' ')}\n`);
}
