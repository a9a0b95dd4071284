import { applyObject, createObject, getObject, listObjects, readPodLog, recordEvent, type ClusterConnection } from '@tidemark/cluster';
import { formatOwner, groupOf, messageOf, logTail, ownerAnnotation, scrubText, type InventoryEntry, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import type { StatusStore } from '@tidemark/status-store';
import { DashboardError, ErrorCode, notFound } from '../api/dashboard-error';
import type { Principal } from '../auth/principal';
import { inScope } from '../auth/token-scope';
import type { AuditEvent } from '../audit/audit-events';

/** The workloads a rollout restart applies to, as `kubectl rollout restart` does. */
const restartable = new Set(['apps/Deployment', 'apps/StatefulSet', 'apps/DaemonSet']);
/** The annotation `kubectl rollout restart` sets on the pod template: a new value rolls the pods. */
export const restartedAtAnnotation = 'kubectl.kubernetes.io/restartedAt';
/** The field manager of the dashboard's day-2 writes: never Tidemark's, so nothing it sets is drift. */
export const dayTwoFieldManager = 'tidemark-dashboard';

/** WorkloadTarget names one object Tidemark applied: the Git object itself, or one it rendered. */
export interface WorkloadTarget {
  kind: string;
  namespace: string;
  name: string;
}

export interface PodView {
  name: string;
  phase: string;
  ready: string;
  restarts: number;
  node?: string;
  startedAt?: string;
  containers: { name: string; ready: boolean; state: string; log?: string; logError?: string }[];
}

export interface WorkloadEvent {
  type: string;
  reason: string;
  message: string;
  object: string;
  lastSeen?: string;
  count?: number;
}

export interface WorkloadActionsOptions {
  store: Pick<StatusStore, 'get'>;
  /** The dashboard's connection to a cluster, or undefined when it has none (the actions answer 503). */
  connectionFor(cluster: string): ClusterConnection | undefined;
  /**
   * The ServiceAccount (namespace/name) a source's objects are changed as, from the operator's
   * configuration: the source comes from the live object's owner annotation, never from Redis.
   */
  identityFor?(source: string): { namespace: string; name: string } | undefined;
  /** How many log lines per container, at most. @defaultValue 50 */
  logLines?: number;
  now?: () => Date;
}

/**
 * WorkloadActions are the day-2 actions on what Tidemark manages: a rollout restart, a look at a
 * workload's Pods (status, events, the last lines of their logs) and running a CronJob now. Each
 * needs the operator role (the routes check it) and a scope that covers the Git object, and acts
 * only on a live object whose owner annotation says Tidemark applied it for that Git object: the
 * status record (from Redis) only says where to look, the cluster proves it.
 */
export class WorkloadActions {
  constructor(private readonly options: WorkloadActionsOptions) {}

  /** restart sets the pod template's restartedAt, so the controller rolls the pods, and records an Event. */
  async restart(cluster: string, objectKey: string, target: WorkloadTarget | undefined, principal: Principal | undefined): Promise<{ action: string; cluster: string; objectKey: string; target: string; restartedAt: string }> {
    const { connection, live } = await this.managed({ cluster, objectKey, target, principal }, restartable, 'restart');
    const restartedAt = (this.options.now?.() ?? new Date()).toISOString();
    await applyObject(connection.asManager(dayTwoFieldManager), {
      apiVersion: live.apiVersion, kind: live.kind,
      metadata: { name: live.metadata.name, namespace: live.metadata.namespace },
      spec: { template: { metadata: { annotations: { [restartedAtAnnotation]: restartedAt } } } },
    } as KubernetesManifest, { force: true });
    await this.event(cluster, live, 'RolloutRestarted', `Rollout restart by ${principal?.name ?? 'unknown'} from the Tidemark dashboard`);
    return { action: 'restart', cluster, objectKey, target: describeLive(live), restartedAt };
  }

  /** pods lists the workload's Pods with their status, the last lines of each container's log, and the recent Events. */
  async pods(cluster: string, objectKey: string, target: WorkloadTarget | undefined, principal: Principal | undefined): Promise<{ cluster: string; objectKey: string; target: string; pods: PodView[]; events: WorkloadEvent[] }> {
    const { connection, live } = await this.managed({ cluster, objectKey, target, principal }, undefined, 'show the pods of');
    const namespace = live.metadata.namespace ?? '';
    const selector = matchLabelsOf(live);
    const pods = selector ? (await listObjects(connection, 'v1', 'Pod', namespace, selector)).slice(0, 20) : [];
    const views = await Promise.all(pods.map((pod) => this.podView(connection, namespace, pod)));
    const names = new Set([live.metadata.name, ...pods.map((pod) => pod.metadata.name)]);
    const events = (await listObjects(connection, 'v1', 'Event', namespace))
      .filter((event) => names.has(String((event as { involvedObject?: { name?: string } }).involvedObject?.name)))
      .map(eventView)
      .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''))
      .slice(0, 30);
    return { cluster, objectKey, target: describeLive(live), pods: views, events };
  }

  /** runJob creates a Job from a managed CronJob's template now, as `kubectl create job --from=cronjob/…` does. */
  async runJob(cluster: string, objectKey: string, target: WorkloadTarget | undefined, principal: Principal | undefined): Promise<{ action: string; cluster: string; objectKey: string; target: string; job: string }> {
    const { connection, live } = await this.managed({ cluster, objectKey, target, principal }, new Set(['batch/CronJob']), 'run');
    const template = (live.spec as { jobTemplate?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown } } | undefined)?.jobTemplate;
    if (!template?.spec) throw new DashboardError(ErrorCode.BadRequest, 400, `${describeLive(live)} has no spec.jobTemplate to run.`);
    const stamp = Math.floor((this.options.now?.() ?? new Date()).getTime() / 1000);
    const name = `${live.metadata.name.slice(0, 63 - 18)}-manual-${stamp}`.slice(0, 63);
    const job = {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: {
        name, namespace: live.metadata.namespace,
        labels: { ...template.metadata?.labels },
        annotations: { ...template.metadata?.annotations, 'cronjob.kubernetes.io/instantiate': 'manual', 'tidemark.dev/run-by': principal?.name ?? 'unknown' },
        ownerReferences: [{ apiVersion: live.apiVersion, kind: live.kind, name: live.metadata.name, uid: live.metadata.uid, controller: true }],
      },
      spec: template.spec,
    } as KubernetesManifest;
    if (await createObject(connection, job) === 'exists') throw new DashboardError(ErrorCode.Conflict, 409, `Job ${live.metadata.namespace}/${name} exists already; try again in a second.`);
    await this.event(cluster, live, 'JobRunNow', `Job ${name} run by ${principal?.name ?? 'unknown'} from the Tidemark dashboard`);
    return { action: 'run-job', cluster, objectKey, target: describeLive(live), job: name };
  }

  /**
   * announce writes an audited action's Event (audit-events.ts says which) on the Git object's live
   * object, after the same proof as the actions: the record is in the principal's scope and the
   * live object's owner annotation names the Git object. Without a connection to the cluster there
   * is no Event. A kind the dashboard may not get (the API server answers 403), an object it cannot
   * prove, or a failed write is skipped with a debug log: the action is done and audited already.
   * Bounded by the cluster client's request timeout; it never throws.
   */
  async announce(event: AuditEvent, principal: Principal | undefined, log: { debug(details: object, message: string): void }): Promise<void> {
    const own = this.options.connectionFor(event.cluster);
    if (!own) return;
    try {
      const { live } = await this.managed({ cluster: event.cluster, objectKey: event.objectKey, target: undefined, principal }, undefined, 'announce');
      await recordEvent(own, live, { type: 'Normal', reason: event.reason, message: event.message });
    } catch (error) {
      log.debug({ cluster: event.cluster, objectKey: event.objectKey, reason: event.reason }, `audit: no Event ${event.reason} on ${event.objectKey}: ${scrubText(messageOf(error)).slice(0, 300)}`);
    }
  }

  /**
   * managed finds the live object an action is about and proves Tidemark manages it for that Git
   * object: the record must be in the principal's scope, the target must be the Git object or in
   * its inventory, and the live object's owner annotation must name the record's source and key.
   */
  private async managed(asked: ActionRequest, kinds: ReadonlySet<string> | undefined, verb: string): Promise<{ connection: ClusterConnection; live: KubernetesManifest }> {
    const { cluster, objectKey, principal } = asked;
    const status = await this.options.store.get(cluster, objectKey);
    if (!status || !inScope(principal?.scope, status)) throw notFound(`${objectKey} on cluster ${cluster}`);
    const entry = targetEntry(status, asked);
    if (kinds && !kinds.has(`${groupOf(entry.apiVersion)}/${entry.kind}`)) {
      throw new DashboardError(ErrorCode.BadRequest, 400, `Tidemark can ${verb} ${[...kinds].map((kind) => kind.split('/')[1]).join(', ')} objects only, not ${entry.kind}.`);
    }
    const own = this.options.connectionFor(cluster);
    if (!own) throw new DashboardError(ErrorCode.ClusterUnreachable, 503, `The dashboard has no connection to cluster ${cluster}; give it one with TIDEMARK_DASHBOARD_KUBECONFIGS (see docs/dashboard.md).`);
    const live = await getObject(own, { apiVersion: entry.apiVersion, kind: entry.kind, namespace: entry.namespace || undefined, name: entry.name })
      .catch((error: unknown) => { throw new DashboardError(ErrorCode.ClusterUnreachable, 503, `Could not read ${entry.kind} ${entry.namespace}/${entry.name} on cluster ${cluster}: ${scrubText(messageOf(error)).slice(0, 300)}`); });
    const owner = formatOwner({ source: status.source, objectKey });
    if (!live || live.metadata.annotations?.[ownerAnnotation] !== owner) {
      throw new DashboardError(ErrorCode.Forbidden, 403, `${entry.kind} ${entry.namespace}/${entry.name} on cluster ${cluster} is not one Tidemark applied for ${objectKey} (its ${ownerAnnotation} annotation does not say so); the dashboard only acts on objects it can prove Tidemark manages.`);
    }
    const identity = this.options.identityFor?.(status.source);
    return { connection: identity ? own.asServiceAccount(identity) : own, live };
  }

  private async podView(connection: ClusterConnection, namespace: string, pod: KubernetesManifest): Promise<PodView> {
    const status = (pod.status ?? {}) as { phase?: string; startTime?: string; containerStatuses?: { name: string; ready?: boolean; restartCount?: number; state?: Record<string, unknown> }[] };
    const spec = (pod.spec ?? {}) as { nodeName?: string; containers?: { name: string }[] };
    const statuses = status.containerStatuses ?? [];
    const containers = await Promise.all((spec.containers ?? []).slice(0, 10).map(async (container) => {
      const own = statuses.find((item) => item.name === container.name);
      const view: PodView['containers'][number] = { name: container.name, ready: own?.ready ?? false, state: Object.keys(own?.state ?? {})[0] ?? 'unknown' };
      try {
        view.log = redactLog(await readPodLog(connection, namespace, pod.metadata.name, { container: container.name, tailLines: this.options.logLines ?? 50 }));
      } catch (error) {
        view.logError = scrubText(messageOf(error)).slice(0, 300);
      }
      return view;
    }));
    return {
      name: pod.metadata.name, phase: status.phase ?? 'Unknown',
      ready: `${statuses.filter((item) => item.ready).length}/${spec.containers?.length ?? 0}`,
      restarts: statuses.reduce((sum, item) => sum + (item.restartCount ?? 0), 0),
      ...(spec.nodeName ? { node: spec.nodeName } : {}),
      ...(status.startTime ? { startedAt: status.startTime } : {}),
      containers,
    };
  }

  private async event(cluster: string, about: KubernetesManifest, reason: string, message: string): Promise<void> {
    const connection = this.options.connectionFor(cluster);
    if (!connection) return;
    // The action is done; an Event that cannot be written does not undo it.
    await recordEvent(connection, about, { type: 'Normal', reason, message }).catch(() => undefined);
  }
}

interface ActionRequest {
  cluster: string;
  objectKey: string;
  target: WorkloadTarget | undefined;
  principal: Principal | undefined;
}

/** targetEntry is the inventory entry an action targets: the Git object itself, or one it rendered (in its inventory). */
function targetEntry(status: ObjectStatus, { cluster, objectKey, target }: ActionRequest): InventoryEntry {
  if (!target) return { apiVersion: status.apiVersion, kind: status.kind, namespace: status.namespace, name: status.name };
  const entry = status.inventory.find((item) => item.kind === target.kind && item.namespace === target.namespace && item.name === target.name);
  if (!entry) throw notFound(`${target.kind} ${target.namespace}/${target.name} among what ${objectKey} applied on cluster ${cluster}`);
  return entry;
}

/** redactLog is the last 200 lines, each cut to 2,000 characters, cleaned and scrubbed by logTail, at most 16 KiB in all. */
export function redactLog(text: string): string {
  return logTail(text, { lines: 200, lineChars: 2_000 }).join('\n').slice(-16_384);
}

function matchLabelsOf(live: KubernetesManifest): Record<string, string> | undefined {
  const labels = (live.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector?.matchLabels;
  return labels && Object.keys(labels).length > 0 ? labels : undefined;
}

function describeLive(live: KubernetesManifest): string {
  return `${live.kind} ${live.metadata.namespace ? `${live.metadata.namespace}/` : ''}${live.metadata.name}`;
}

function eventView(event: KubernetesManifest): WorkloadEvent {
  const fields = event as unknown as { type?: string; reason?: string; message?: string; involvedObject?: { kind?: string; name?: string }; lastTimestamp?: string; eventTime?: string; count?: number };
  return {
    type: fields.type ?? 'Normal', reason: fields.reason ?? '', message: scrubText(fields.message ?? '').slice(0, 500),
    object: `${fields.involvedObject?.kind ?? ''} ${fields.involvedObject?.name ?? ''}`.trim(),
    ...(fields.lastTimestamp ?? fields.eventTime ? { lastSeen: fields.lastTimestamp ?? fields.eventTime } : {}),
    ...(fields.count !== undefined ? { count: fields.count } : {}),
  };
}
