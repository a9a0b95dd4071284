import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterConnection, getObject, loadSelfContainedKubeconfig, type KubeClientOptions } from '@tidemark/cluster';
import type { ClusterConfig } from './config';
import { messageOf } from '@tidemark/contracts';

/** ClusterSet holds, per cluster, the main connection and the one for a kind's partial patches. */
export interface ClusterSet {
  main: Map<string, ClusterConnection>;
  actions: Map<string, ClusterConnection>;
  close(): void;
}

/**
 * connectClusters builds the connections, except to clusters agents serve. Kubeconfig files and in-cluster config come first;
 * clusters whose kubeconfig is in a Secret are then read through the cluster that holds it.
 * Credentials stay in memory: never in Git, Redis, logs or errors. `observe` gives each
 * cluster's client a hook called after every API request (metrics).
 */
export async function connectClusters(clusters: readonly ClusterConfig[], observe?: (cluster: string) => KubeClientOptions['onResponse']): Promise<ClusterSet> {
  const main = new Map<string, ClusterConnection>();
  const add = (cluster: ClusterConfig, kubeconfig: KubeConfig) => {
    main.set(cluster.name, ClusterConnection.connect({ cluster: cluster.name, kubeconfig, allowExecPlugins: cluster.allowExecPlugins, fieldManager: 'tidemark', onResponse: observe?.(cluster.name) }));
  };
  // A cluster an agent serves is never connected to: the hub holds no credential for it.
  const reachable = clusters.filter((cluster) => !cluster.agent);
  for (const cluster of reachable) if (!cluster.kubeconfigSecret) add(cluster, loadKubeconfig(cluster));
  for (const cluster of reachable) if (cluster.kubeconfigSecret) add(cluster, await kubeconfigFromSecret(cluster, main));
  const actions = new Map([...main].map(([name, connection]) => [name, connection.asManager('tidemark-actions')]));
  return {
    main,
    actions,
    close() {
      for (const connection of main.values()) connection.close();
    },
  };
}

function loadKubeconfig(cluster: ClusterConfig): KubeConfig {
  const config = new KubeConfig();
  if (cluster.inCluster) {
    config.loadFromCluster();
    return config;
  }
  try {
    config.loadFromString(readFileSync(cluster.kubeconfigPath!, 'utf8'));
  } catch (error) {
    throw new Error(`cluster ${cluster.name}: cannot load kubeconfig ${cluster.kubeconfigPath}: ${messageOf(error)}`);
  }
  return config;
}

async function kubeconfigFromSecret(cluster: ClusterConfig, connected: ReadonlyMap<string, ClusterConnection>): Promise<KubeConfig> {
  const ref = cluster.kubeconfigSecret!;
  const where = `cluster ${cluster.name}: kubeconfigSecret ${ref.namespace}/${ref.name} key ${ref.key} on cluster ${ref.cluster}`;
  const holder = connected.get(ref.cluster);
  if (!holder) throw new Error(`${where}: cluster ${ref.cluster} is not registered with a kubeconfig file or inCluster`);
  const secret = (await getObject(holder, { apiVersion: 'v1', kind: 'Secret', namespace: ref.namespace, name: ref.name })) as { data?: Record<string, string> } | undefined;
  const encoded = secret?.data?.[ref.key];
  if (!encoded) throw new Error(`${where}: the Secret or its key does not exist`);
  // From a Secret: inline credentials only, and nothing that runs a command unless allowed.
  return loadSelfContainedKubeconfig(Buffer.from(encoded, 'base64').toString('utf8'), where, cluster.allowExecPlugins);
}
