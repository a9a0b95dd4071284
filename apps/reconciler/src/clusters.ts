import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterConnection, type KubeClientOptions } from '@tidemark/cluster';
import type { ClusterConfig } from './config';

/** ClusterSet holds, per cluster, the main connection and the one for a kind's partial patches. */
export interface ClusterSet {
  main: Map<string, ClusterConnection>;
  actions: Map<string, ClusterConnection>;
  close(): void;
}

/**
 * connectClusters builds the connections; it reads kubeconfigs but opens no socket yet.
 * `observe` gives each cluster's client a hook called after every API request (metrics).
 */
export function connectClusters(clusters: readonly ClusterConfig[], observe?: (cluster: string) => KubeClientOptions['onResponse']): ClusterSet {
  const main = new Map<string, ClusterConnection>();
  const actions = new Map<string, ClusterConnection>();
  for (const cluster of clusters) {
    const kubeconfig = loadKubeconfig(cluster);
    const connection = ClusterConnection.connect({ cluster: cluster.name, kubeconfig, allowExecPlugins: cluster.allowExecPlugins, fieldManager: 'tidemark', onResponse: observe?.(cluster.name) });
    main.set(cluster.name, connection);
    actions.set(cluster.name, connection.asManager('tidemark-actions'));
  }
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
    throw new Error(`cluster ${cluster.name}: cannot load kubeconfig ${cluster.kubeconfigPath}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return config;
}
