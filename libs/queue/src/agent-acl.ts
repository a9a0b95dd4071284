import { RecordKeys } from '@tidemark/contracts';
import { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';
import { clusterQueuePrefix, redisPrefix, type QueueNamingOptions } from './queue-names';

/**
 * The commands an agent's connections send: BullMQ's workers (its Lua scripts by EVALSHA, EVAL
 * when a script is not loaded yet, blocking pops on its marker key, INFO for the server's version,
 * CLIENT SETNAME) and the status store's reads, writes, transactions and pub/sub. Every data
 * command is still limited to the keys and channels below.
 */
const allowed = ['+@read', '+@write', '+@transaction', '+@pubsub', '+eval', '+evalsha', '+eval_ro', '+evalsha_ro', '+script|load', '+script|exists',
  '+ping', '+echo', '+hello', '+auth', '+select', '+quit', '+reset', '+readonly', '+readwrite', '+asking', '+command',
  '+client|setname', '+client|getname', '+client|id', '+client|info', '+info'];

/**
 * Refused after the grants: anything that reads or rewrites the server (KEYS, FLUSHALL, FLUSHDB,
 * CONFIG, DEBUG, MONITOR, ACL, SHUTDOWN, SORT: the @dangerous category, INFO put back above) and
 * what names keys without a key pattern checking them (SCAN, RANDOMKEY), changes what every user
 * runs (FUNCTION, SCRIPT FLUSH) or moves keys between databases.
 */
const refused = ['-@dangerous', '-@admin', '-scan', '-randomkey', '-dbsize', '-function', '-fcall', '-fcall_ro', '-move', '-swapdb', '+info'];

/** What a prefix may hold inside an ACL key pattern, as a cluster's name (queueNameFor): no glob character, no space. */
const patternSafe = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** On a Redis Cluster a client reads the slot map (CLUSTER SLOTS, or SHARDS) to find each key's node: put back after the refusals. */
const clusterTopology = ['+cluster|slots', '+cluster|shards', '+cluster|info', '+cluster|myid'];

/**
 * agentAclRule is the Redis ACL rule of the agent that serves one target cluster: the words after
 * `ACL SETUSER <user> on >password` (or after `user <name> on #<sha256>` in an ACL file). It grants:
 * - read and write on the cluster's own keys, all under its hash tag (`%RW~{tidemark.<cluster>}*`):
 *   its queue and the queue's records, its status records and history, resync schedule, leases,
 *   health, freeze, prune holds, resource trees, dependency waits and commit statuses;
 * - read only on the shared records a worker reads (the sources' poll records: the revision gate,
 *   the record schema, and the hub's mark that Redis lost Tidemark's records, after which the agent
 *   rebuilds its cluster's, marking each rebuild under its own tag);
 * - publishing and subscribing on the status and tree channels, and on the source heads channel
 *   (a hint to fetch ahead of a job: one an agent forges costs at most a fetch, see docs/agents.md);
 * - the commands BullMQ's workers and the status store send, and nothing else: no KEYS, SCAN,
 *   FLUSHALL, CONFIG, and no key of another cluster or of the hub (sources, sessions, audit).
 * A Redis without per-cluster hash tags (one server, no `hashTag`) keeps some records of every
 * cluster in shared keys, so no rule can hold an agent to its own: that is refused here.
 */
export function agentAclRule(cluster: string, naming: QueueNamingOptions = {}): string[] {
  if (!naming.hashTag) {
    throw new InvalidQueueOptionsError(`An agent's Redis ACL for cluster "${cluster}" needs per-cluster hash tags (a Redis Cluster, or hashTag set): without them some records of every cluster share keys, and Redis could not keep the agent to its own.`);
  }
  const own = clusterQueuePrefix(naming, cluster);
  // The cluster's name is checked by clusterQueuePrefix (queueNameFor); a prefix may hold more than a pattern can.
  const prefix = naming.prefix ?? 'tidemark';
  if (!patternSafe.test(prefix)) throw new InvalidQueueOptionsError(`The prefix "${prefix}" cannot be held to an agent's ACL rule: use 1-63 letters, digits, '.', '_' or '-' (Redis reads * ? [ ] \\ in a key pattern as globs, which would grant other clusters' keys).`);
  const keys = new RecordKeys(redisPrefix(naming));
  return [
    'resetkeys', 'resetchannels', '-@all', ...allowed, ...refused, ...clusterTopology,
    `%RW~${own}*`,
    `%R~${keys.sourceStatus('*')}`,
    `%R~${keys.schema}`,
    `%R~${keys.recordsLost}`,
    `&${keys.statusChanges}`,
    `&${keys.treeChanges}`,
    `&${keys.sourceHeads}`,
  ];
}
