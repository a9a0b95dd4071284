// The WebApps the benches push: the base (Deployment, Service, ServiceAccount) plus the config
// feature (a ConfigMap), so each CR makes five objects with itself.
import { stringify } from 'yaml';
import type { KubernetesManifest } from '@tidemark/contracts';

export function webApp(namespace: string, name: string, greeting = 'hello'): KubernetesManifest {
  return {
    apiVersion: 'tidemark.dev/v1alpha1',
    kind: 'WebApp',
    metadata: { name, namespace },
    // Headless: the rig's Service range is a /24, too small for a thousand cluster IPs.
    spec: { image: 'nginx:1.27', replicas: 1, features: { config: { enabled: true, data: { GREETING: greeting } } }, override: { service: { spec: { clusterIP: 'None' } } } },
  } as KubernetesManifest;
}

/** webAppFiles spreads `count` WebApps over `namespaces` namespaces, one file per namespace. */
export function webAppFiles(prefix: string, namespaces: number, count: number): { files: Record<string, string>; keys: string[] } {
  const files: Record<string, string> = {};
  const keys: string[] = [];
  for (let n = 0; n < namespaces; n += 1) {
    const namespace = `${prefix}-${n}`;
    const documents: KubernetesManifest[] = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } as KubernetesManifest];
    for (let i = n; i < count; i += namespaces) {
      documents.push(webApp(namespace, `app-${i}`));
      keys.push(`tidemark.dev/WebApp/${namespace}/app-${i}`);
    }
    files[`apps/${namespace}.yaml`] = documents.map((document) => stringify(document)).join('---\n');
  }
  return { files, keys };
}
