/** KubernetesManifest is a typed view of any object: parsed YAML stays `unknown` until checked. */
export interface KubernetesManifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    generation?: number;
    resourceVersion?: string;
    uid?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}
