// Builds the dashboard on the rig's Redis with a private prefix, for inject and browser tests.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Condition, ObjectStatus } from '@tidemark/contracts';
import { ReconcileQueues, type PreviewQueue } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { buildDashboard, type DashboardDeps } from '../../apps/dashboard/src/build-app';
import type { AccessToken } from '../../apps/dashboard/src/auth/principal';
import type { OidcSettings } from '../../apps/dashboard/src/auth/oidc-settings';

export const viewerToken = 'viewer-token-0123456789abcdef';
export const operatorToken = 'operator-token-0123456789abcdef';

export interface DashboardFixture {
  app: FastifyInstance;
  store: StatusStore;
  queues: ReconcileQueues;
  redis: Redis;
  prefix: string;
  stop(): Promise<void>;
}

export interface DashboardFixtureOptions {
  /** Use this store (e.g. the pipeline harness's) instead of a fresh one. */
  store?: StatusStore;
  clusters?: string[];
  /** More tokens besides vera (viewer) and otto (operator), e.g. scoped ones. */
  tokens?: AccessToken[];
  /** The cache's batch window (a slow subscriber): views must agree with the store however late pub/sub is. */
  liveBatchMs?: number;
  /** The preview queue the dashboard's POST /api/previews feeds. */
  previews?: PreviewQueue;
  /** Proxies whose X-Forwarded-For names the client. */
  trustedProxies?: string[];
  /** Another fixture's prefix: this one is then a second replica on the same records. @defaultValue a fresh one */
  prefix?: string;
  /** The dashboard's own connections to clusters, for day-2 actions. */
  clusterConnections?: DashboardDeps['clusterConnections'];
  /** Single sign-on through an OpenID provider. */
  oidc?: OidcSettings;
}

export async function startDashboardFixture(redisUrl: string, options: DashboardFixtureOptions = {}): Promise<DashboardFixture> {
  const prefix = options.prefix ?? `dash-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(redisUrl);
  const subscriber = new Redis(redisUrl);
  const store = options.store ?? new StatusStore({ redis, prefix });
  const clusters = options.clusters ?? ['shared', 'edge'];
  const queues = new ReconcileQueues({ connection: redis, prefix, clusters });
  await queues.start();
  const app = await buildDashboard({
    statusStore: store, queues, redis, subscriber, clusters, ...(options.liveBatchMs === undefined ? {} : { liveBatchMs: options.liveBatchMs }), ...(options.previews ? { previews: options.previews } : {}),
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
    ...(options.clusterConnections ? { clusterConnections: options.clusterConnections } : {}),
    auth: {
      sessionSecret: 'a-test-session-secret-of-32-characters-or-more',
      tokens: [{ name: 'vera', role: 'viewer', token: viewerToken }, { name: 'otto', role: 'operator', token: operatorToken }, ...(options.tokens ?? [])],
      ...(options.oidc ? { oidc: options.oidc } : {}),
    },
  });
  await app.ready();
  return {
    app, store, queues, redis, prefix,
    async stop() {
      await app.close();
      await queues.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}

const revision = 'a'.repeat(40);

/** condition builds a condition with a fixed time, for seeded records. */
export function condition(type: string, status: Condition['status'], reason: string, message = `${type} is ${status}.`): Condition {
  return { type, status, reason, message, observedGeneration: 1, lastTransitionTime: new Date(Date.now() - 90_000).toISOString() };
}

export const readyConditions = [condition('Ready', 'True', 'ReconciliationSucceeded'), condition('Reconciling', 'False', 'ReconciliationSucceeded'), condition('Stalled', 'False', 'ReconciliationSucceeded')];
export const progressingConditions = [condition('Ready', 'False', 'Progressing'), condition('Reconciling', 'True', 'Progressing', 'Waiting for the Deployment to become available.'), condition('Stalled', 'False', 'Progressing')];
export const stalledConditions = [condition('Ready', 'False', 'ValidationFailed'), condition('Reconciling', 'False', 'ValidationFailed'), condition('Stalled', 'True', 'ValidationFailed', 'spec.replicas: must be at most 100.')];

/** seededStatus makes a plausible record of a ConfigMap or any kind. */
export function seededStatus(cluster: string, kind: string, namespace: string, name: string, extra: Partial<ObjectStatus> = {}): ObjectStatus {
  const group = kind === 'WebApp' ? 'tidemark.dev' : kind === 'Deployment' ? 'apps' : 'core';
  const apiVersion = kind === 'WebApp' ? 'tidemark.dev/v1alpha1' : kind === 'Deployment' ? 'apps/v1' : 'v1';
  return {
    cluster, objectKey: `${group}/${kind}/${namespace || '_'}/${name}`, source: 'main-repo', path: `apps/${name}.yaml`, line: 1,
    apiVersion, kind, namespace, name, generation: 1, observedGeneration: 1, lastAppliedRevision: revision, lastAttemptedRevision: revision,
    conditions: readyConditions, inventory: [], updatedAt: new Date().toISOString(), ...extra,
  };
}
