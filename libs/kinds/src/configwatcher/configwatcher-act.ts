import { ownerAnnotation } from '@tidemark/contracts';
import type { ActionContext, ActionResult, KubernetesManifest } from '../kind-plugin';
import { configMapHash } from './configmap-hash';
import { ConfigWatcherReason, configMapWatchedCondition } from './configwatcher-conditions';
import type { ConfigWatcherSpec, ConfigWatcherStatus } from './configwatcher-types';
import { deleteSelectedPods, rolloutRestartDeployments, type RestartTarget } from './restart-workloads';

type Context = ActionContext<ConfigWatcherSpec, ConfigWatcherStatus>;
type Result = ActionResult<ConfigWatcherStatus>;

/**
 * actOnConfigWatcher restarts the selected workloads when the watched ConfigMap's content
 * differs from the hash recorded in status. It is level-triggered: it compares hashes and
 * never reacts to the event that woke it, so a replayed job restarts nothing twice. The
 * first sight of a ConfigMap only records its hash, since nothing has changed yet.
 */
export async function actOnConfigWatcher(context: Context): Promise<Result> {
  const { object, previousStatus, cluster } = context;
  const namespace = object.metadata.namespace ?? 'default';
  const name = object.spec.configMap;
  const configMap = await cluster.get('v1', 'ConfigMap', namespace, name);
  if (!configMap) {
    return watched(previousStatus, 'False', ConfigWatcherReason.ConfigMapMissing, `ConfigMap ${namespace}/${name} does not exist; create it or change spec.configMap.`);
  }
  const hash = configMapHash(configMap);
  const version = configMap.metadata.resourceVersion;
  const seenAt = version === undefined ? {} : { lastConfigMapResourceVersion: version };
  if (previousStatus.lastConfigMapHash === undefined) {
    return watched({ ...previousStatus, lastConfigMapHash: hash, ...seenAt, restarts: previousStatus.restarts ?? 0 }, 'True', ConfigWatcherReason.HashRecorded, `Watching ConfigMap ${namespace}/${name}; its current content is recorded and nothing was restarted.`);
  }
  if (previousStatus.lastConfigMapHash === hash) return unchanged(previousStatus, configMap, `${namespace}/${name}`);
  return restart(context, { cluster, namespace, matchLabels: object.spec.podSelector.matchLabels ?? {}, configMapHash: hash, ...(version === undefined ? {} : { configMapVersion: version }), now: context.now });
}

/**
 * unchanged: the content is what the workloads last restarted with. A newer resourceVersion
 * means the ConfigMap changed and came back (Tidemark healed a hand edit back to Git's content,
 * or someone undid their own edit): nothing to restart, and the status says why.
 */
function unchanged(previousStatus: Partial<ConfigWatcherStatus>, configMap: KubernetesManifest, name: string): Result {
  const recorded = previousStatus.lastConfigMapResourceVersion;
  if (recorded === undefined || recorded === configMap.metadata.resourceVersion) {
    return watched(previousStatus, 'True', ConfigWatcherReason.Unchanged, `ConfigMap ${name} is unchanged since the last restart.`);
  }
  const message = configMap.metadata.annotations?.[ownerAnnotation]
    ? `ConfigMap ${name} healed back to Git's content; no restart needed.`
    : `ConfigMap ${name} changed and came back to the content the pods last restarted with; no restart needed.`;
  return watched(previousStatus, 'True', ConfigWatcherReason.HealedBack, message);
}

async function restart(context: Context, target: RestartTarget): Promise<Result> {
  const { previousStatus, object } = context;
  const configMap = `${target.namespace}/${object.spec.configMap}`;
  if (Object.keys(target.matchLabels).length === 0) {
    // An empty selector matches every pod in the namespace; restarting all of them is never what was meant.
    return watched(previousStatus, 'False', ConfigWatcherReason.EmptySelector, `ConfigMap ${configMap} changed but spec.podSelector.matchLabels is empty; set at least one label so only the intended pods restart.`);
  }
  const status = { ...previousStatus, lastConfigMapHash: target.configMapHash, ...(target.configMapVersion === undefined ? {} : { lastConfigMapResourceVersion: target.configMapVersion }), restarts: (previousStatus.restarts ?? 0) + 1, lastRestartTime: target.now.toISOString() };
  const selector = Object.entries(target.matchLabels).map(([key, value]) => `${key}=${value}`).join(',');
  if (object.spec.strategy === 'RolloutRestart') {
    const count = await rolloutRestartDeployments(target);
    return watched(status, 'True', ConfigWatcherReason.DeploymentsRestarted, `ConfigMap ${configMap} changed; restarted ${count} Deployments whose pod template matches ${selector}.`);
  }
  const count = await deleteSelectedPods(target);
  return watched(status, 'True', ConfigWatcherReason.PodsDeleted, `ConfigMap ${configMap} changed; deleted ${count} pods matching ${selector}.`);
}

function watched(status: Partial<ConfigWatcherStatus>, conditionStatus: 'True' | 'False', reason: ConfigWatcherReason, message: string): Result {
  return { status, conditions: [{ type: configMapWatchedCondition, status: conditionStatus, reason, message }] };
}
