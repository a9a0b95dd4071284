// The WebApps the benches push: the base (Deployment, Service, ServiceAccount) plus the config
// feature (a ConfigMap), so each CR makes five objects with itself.
import { stringify } from 'yaml';
import type { KubernetesManifest } from '@tidemark/contracts';

/**
 * WebAppVersion: the benches write WebApps at the storage version, v1beta1, as a user does today;
 * v1alpha1 (deprecated, still served) makes every request for them go through the conversion webhook.
 */
export type WebAppVersion = 'v1beta1' | 'v1alpha1';

export function webApp(namespace: string, name: string, greeting = 'hello', version: WebAppVersion = 'v1beta1'): KubernetesManifest {
  // Headless: the rig's Service range is a /24, too small for a thousand cluster IPs.
  const override = { service: { spec: { clusterIP: 'None' } } };
  const spec = version === 'v1alpha1'
    ? { image: 'nginx:1.27', replicas: 1, features: { config: { enabled: true, data: { GREETING: greeting } } }, override }
    : { image: { repository: 'nginx', tag: '1.27' }, replicas: 1, features: [{ name: 'config', config: { data: { GREETING: greeting } } }], override };
  return { apiVersion: `tidemark.dev/${version}`, kind: 'WebApp', metadata: { name, namespace }, spec } as KubernetesManifest;
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
