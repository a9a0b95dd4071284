import { Type } from '@sinclair/typebox';
import type { WebAppFeature } from './webapp-feature';
import { settingsOf } from './webapp-feature';

/** IngressSettings is spec.features.ingress. */
export type IngressSettings = { enabled: boolean; host: string; path: string; className: string; tlsSecretName: string };

const id = 'ingress';

/** ingressFeature routes `host` + `path` to the WebApp's Service, with TLS when a secret is named. */
export const ingressFeature: WebAppFeature = {
  id,
  schema: Type.Object({
    enabled: Type.Optional(Type.Boolean({ default: false, description: 'Turn the Ingress on.' })),
    host: Type.Optional(Type.String({ maxLength: 253, description: 'Host name; required when enabled.' })),
    path: Type.Optional(Type.String({ default: '/', pattern: '^/', description: 'Path prefix routed to the app.' })),
    className: Type.Optional(Type.String({ description: 'IngressClass to use; the cluster default when empty.' })),
    tlsSecretName: Type.Optional(Type.String({ description: 'Secret with the TLS certificate for host; no TLS when empty.' })),
  }, {
    description: 'Expose the app through an Ingress.',
    'x-kubernetes-validations': [{ rule: '!self.enabled || (has(self.host) && size(self.host) > 0)', message: 'features.ingress.host is required when ingress is enabled' }],
  }),
  components: [{ name: 'ingress', apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' }],
  configure: () => ['ingress'],
  manage({ spec, identity }, managers) {
    const settings = settingsOf<IngressSettings>(spec, id);
    const host = settings.host ?? '';
    const backend = { service: { name: identity.name, port: { name: 'http' } } };
    managers.field('ingress', ['spec', 'rules'], [{ host, http: { paths: [{ path: settings.path ?? '/', pathType: 'Prefix', backend }] } }]);
    if (settings.className) {
      managers.field('ingress', ['spec', 'ingressClassName'], settings.className);
    }
    if (settings.tlsSecretName) {
      managers.field('ingress', ['spec', 'tls'], [{ hosts: [host], secretName: settings.tlsSecretName }]);
    }
  },
};
