import type { KubernetesManifest } from '../../kind-plugin';
import { skeletonOf, type ComponentDeclaration, type Components } from '../components';
import type { WebAppIdentity } from '../webapp-identity';
import { defaultPort, mainContainerName, type WebAppSpec } from '../webapp-types';

/** baseComponentDeclarations are the components every WebApp has. */
export const baseComponentDeclarations: readonly ComponentDeclaration[] = [
  { name: 'serviceAccount', apiVersion: 'v1', kind: 'ServiceAccount' },
  { name: 'deployment', apiVersion: 'apps/v1', kind: 'Deployment' },
  { name: 'service', apiVersion: 'v1', kind: 'Service' },
];

/** renderBaseComponents is render's first phase: a ServiceAccount, a Deployment and a Service. */
export function renderBaseComponents(spec: WebAppSpec, identity: WebAppIdentity): Components {
  const [serviceAccount, deployment, service] = baseComponentDeclarations.map((declaration) => skeletonOf(declaration, identity)) as [
    KubernetesManifest,
    KubernetesManifest,
    KubernetesManifest,
  ];
  deployment.spec = deploymentSpec(spec, identity);
  service.spec = {
    type: 'ClusterIP',
    selector: { ...identity.selectorLabels },
    ports: [{ name: 'http', port: spec.port ?? defaultPort, targetPort: 'http', protocol: 'TCP' }],
  };
  return new Map([
    ['serviceAccount', serviceAccount],
    ['deployment', deployment],
    ['service', service],
  ]);
}

function deploymentSpec(spec: WebAppSpec, identity: WebAppIdentity): Record<string, unknown> {
  const container: Record<string, unknown> = {
    name: mainContainerName,
    image: spec.image,
    ...(spec.imagePullPolicy ? { imagePullPolicy: spec.imagePullPolicy } : {}),
    ports: [{ name: 'http', containerPort: spec.port ?? defaultPort, protocol: 'TCP' }],
  };
  if (spec.env && spec.env.length > 0) {
    container.env = structuredClone(spec.env);
  }
  if (spec.resources) {
    container.resources = structuredClone(spec.resources);
  }
  return {
    // Features may remove replicas (autoscaling); defaults fill it for everyone else.
    replicas: spec.replicas ?? 1,
    selector: { matchLabels: { ...identity.selectorLabels } },
    template: {
      metadata: { labels: { ...identity.labels } },
      spec: { serviceAccountName: identity.name, containers: [container] },
    },
  };
}
