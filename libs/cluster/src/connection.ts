import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type KubeClientOptions } from './kube-client';
import { Discovery } from './discovery';

/** ClusterConnection is a cluster's client, its discovery cache and the field manager it writes as. */
export class ClusterConnection {
  /**
   * fieldManager is the server-side-apply manager name this connection writes with.
   * @defaultValue 'tidemark'
   */
  readonly fieldManager: string;

  private constructor(readonly client: KubeClient, readonly discovery: Discovery, fieldManager: string) {
    this.fieldManager = fieldManager;
  }

  /** connect builds a connection; it opens no socket until the first request. */
  static connect(options: KubeClientOptions & { fieldManager?: string }): ClusterConnection {
    const client = new KubeClient(options);
    return new ClusterConnection(client, new Discovery(client), options.fieldManager ?? 'tidemark');
  }

  /** inCluster connects as the pod's own ServiceAccount, as KubeConfig.loadFromCluster reads it. */
  static inCluster(cluster: string, fieldManager?: string): ClusterConnection {
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromCluster();
    return ClusterConnection.connect({ cluster, kubeconfig, ...(fieldManager ? { fieldManager } : {}) });
  }

  /** asManager shares this connection's client and discovery under another field manager. */
  asManager(fieldManager: string): ClusterConnection {
    return new ClusterConnection(this.client, this.discovery, fieldManager);
  }

  /**
   * asServiceAccount shares this connection's sockets and discovery, but every request impersonates
   * the ServiceAccount, so the API server applies its RBAC. Discovery stays shared: every
   * authenticated user may read it, and it says nothing about objects.
   */
  asServiceAccount(serviceAccount: { namespace: string; name: string }): ClusterConnection {
    const user = serviceAccountUser(serviceAccount);
    return new ClusterConnection(this.client.impersonating(user), this.discovery, this.fieldManager);
  }

  /** identity is the user this connection acts as: an impersonated ServiceAccount, or undefined for the reconciler's own. */
  get identity(): string | undefined {
    return this.client.impersonatedUser;
  }

  get name(): string {
    return this.client.cluster;
  }

  close(): void {
    this.client.close();
  }
}

/** serviceAccountUser is the user name Kubernetes gives a ServiceAccount: system:serviceaccount:<namespace>:<name>. */
export function serviceAccountUser(serviceAccount: { namespace: string; name: string }): string {
  return `system:serviceaccount:${serviceAccount.namespace}:${serviceAccount.name}`;
}
