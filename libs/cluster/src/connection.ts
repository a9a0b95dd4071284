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

  /** asManager shares this connection's client and discovery under another field manager. */
  asManager(fieldManager: string): ClusterConnection {
    return new ClusterConnection(this.client, this.discovery, fieldManager);
  }

  get name(): string {
    return this.client.cluster;
  }

  close(): void {
    this.client.close();
  }
}
