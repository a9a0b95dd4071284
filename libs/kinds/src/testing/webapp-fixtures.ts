import type { KubernetesManifest } from '../kind-plugin';
import { applyWebAppDefaults, enabledWebAppFeatures } from '../webapp/apply-webapp-defaults';
import { webAppFeatures } from '../webapp/features/index';
import type { WebAppFeature } from '../webapp/features/webapp-feature';
import { renderWebApp } from '../webapp/render/render-webapp';
import type { WebAppSpec } from '../webapp/webapp-types';

/** webApp builds a WebApp CR named `web` in namespace `shop`, for tests. */
export function webApp(spec: WebAppSpec): KubernetesManifest & { spec: WebAppSpec } {
  return { apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'web', namespace: 'shop', generation: 1 }, spec };
}

/** renderSpec runs the stages a WebApp goes through (defaults, features, render), for tests. */
export function renderSpec(spec: WebAppSpec, features: readonly WebAppFeature[] = webAppFeatures): KubernetesManifest[] {
  const defaulted = applyWebAppDefaults(spec);
  return renderWebApp({ object: webApp(defaulted), features: enabledWebAppFeatures(defaulted, features) }, features);
}

/** byKind returns the single rendered object of a kind, or throws to fail the test. */
export function byKind(objects: readonly KubernetesManifest[], kind: string): KubernetesManifest & { spec: PodOwnerSpec } {
  const found = objects.filter((object) => object.kind === kind);
  if (found.length !== 1) {
    throw new Error(`expected one ${kind}, rendered ${found.length}`);
  }
  return found[0] as KubernetesManifest & { spec: PodOwnerSpec };
}

/** appContainer returns the app container of a rendered Deployment. */
export function appContainer(deployment: KubernetesManifest & { spec: PodOwnerSpec }): TestContainer {
  const container = deployment.spec.template.spec.containers.find((candidate) => candidate.name === 'app');
  if (!container) {
    throw new Error('the Deployment has no app container');
  }
  return container;
}

/** TestContainer is the shape tests read from a rendered container. */
export type TestContainer = {
  name: string;
  image: string;
  env?: { name: string; value?: string }[];
  envFrom?: unknown[];
  ports?: { name: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
  [field: string]: unknown;
};

/** PodOwnerSpec is the shape tests read from a rendered object's spec. */
export type PodOwnerSpec = {
  replicas?: number;
  template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: { containers: TestContainer[]; volumes?: unknown[]; [field: string]: unknown } };
  [field: string]: unknown;
};
