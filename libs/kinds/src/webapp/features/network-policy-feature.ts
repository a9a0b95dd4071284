import { Type } from '@sinclair/typebox';
import type { WebAppFeature } from './webapp-feature';
import { settingsOf } from './webapp-feature';

/** NetworkPolicySettings is spec.features.networkPolicy. */
export type NetworkPolicySettings = { enabled: boolean; allowFrom: { namespaces?: string[]; podLabels?: Record<string, string> } };

const id = 'networkPolicy';

/**
 * networkPolicyFeature admits ingress traffic to the app's pods only from the listed
 * namespaces and from pods with the listed labels in the app's namespace; with neither,
 * only from pods in the same namespace. All ports are open to admitted peers, so the
 * metrics port needs no rule of its own.
 */
export const networkPolicyFeature: WebAppFeature = {
  id,
  schema: Type.Object({
    enabled: Type.Optional(Type.Boolean({ default: false, description: 'Turn the NetworkPolicy on.' })),
    allowFrom: Type.Optional(Type.Object({
      namespaces: Type.Optional(Type.Array(Type.String(), { description: 'Namespaces whose pods may connect.' })),
      podLabels: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Labels of pods in this namespace that may connect.' })),
    }, { description: 'Which pods may connect; with neither namespaces nor podLabels, every pod of this namespace and no other.' })),
  }, { description: 'Restrict incoming traffic with a NetworkPolicy. Remember to allow the ingress controller namespace when ingress is enabled.' }),
  components: [{ name: 'networkPolicy', apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' }],
  configure: () => ['networkPolicy'],
  manage({ spec, identity }, managers) {
    const allowFrom = settingsOf<NetworkPolicySettings>(spec, id).allowFrom ?? {};
    managers.field('networkPolicy', ['spec'], {
      podSelector: { matchLabels: { ...identity.selectorLabels } },
      policyTypes: ['Ingress'],
      ingress: [{ from: peersOf(allowFrom) }],
    });
  },
};

function peersOf(allowFrom: NetworkPolicySettings['allowFrom']): Record<string, unknown>[] {
  const peers: Record<string, unknown>[] = [];
  const namespaces = [...(allowFrom.namespaces ?? [])].sort();
  if (namespaces.length > 0) {
    peers.push({ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: namespaces }] } });
  }
  if (allowFrom.podLabels && Object.keys(allowFrom.podLabels).length > 0) {
    peers.push({ podSelector: { matchLabels: { ...allowFrom.podLabels } } });
  }
  // An empty podSelector admits every pod of the namespace, and only those.
  return peers.length > 0 ? peers : [{ podSelector: {} }];
}
