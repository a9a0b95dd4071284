import { KubeClient, type KubeClientOptions } from './kube-client';
import { Discovery } from './discovery';

/** ClusterConnection is a cluster's client and its discovery cache, shared by every verb. */
export class ClusterConnection {
  readonly client: KubeClient;
  readonly discovery: Discovery;

  constructor(options: KubeClientOptions & { fieldManager?: string }) {
    this.client = new KubeClient(options);
    this.discovery = new Discovery(this.client);
    this.fieldManager = options.fieldManager ?? 'tidemark';
  }

  /** fieldManager is the one server-side-apply manager name Tidemark writes with. @defaultValue 'tidemark' */
  readonly fieldManager: string;

  get name(): string {
    return this.client.cluster;
  }

  close(): void {
    this.client.close();
  }
}
