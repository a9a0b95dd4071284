import { Type } from '@sinclair/typebox';
import type { WebAppFeature } from './webapp-feature';
import { settingsOf } from './webapp-feature';

/** MetricsSettings is spec.features.metrics. */
export type MetricsSettings = { enabled: boolean; port: number; path: string };

const id = 'metrics';

/**
 * metricsFeature publishes a `metrics` port on the container and the Service, tells the app
 * where to serve (METRICS_PORT) and annotates the pods for Prometheus scraping.
 */
export const metricsFeature: WebAppFeature = {
  id,
  schema: Type.Object({
    enabled: Type.Optional(Type.Boolean({ default: false, description: 'Turn the metrics port on.' })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 9090, description: 'Port the app serves metrics on, published as the `metrics` port; must differ from spec.port.' })),
    path: Type.Optional(Type.String({ default: '/metrics', pattern: '^/', description: 'HTTP path Prometheus scrapes.' })),
  }, { description: 'Expose Prometheus metrics on a named port.' }),
  specValidations: [
    {
      rule: '!(has(self.features) && has(self.features.metrics) && has(self.features.metrics.enabled) && self.features.metrics.enabled && has(self.features.metrics.port) && has(self.port) && self.features.metrics.port == self.port)',
      message: 'features.metrics.port must differ from spec.port; the app port is already published as http',
    },
  ],
  specValidationsV1beta1: [
    {
      rule: '!(has(self.features) && has(self.port) && self.features.exists(f, f.name == \'metrics\' && has(f.metrics) && has(f.metrics.port) && f.metrics.port == self.port))',
      message: 'the metrics feature\'s port must differ from spec.port; the app port is already published as http',
    },
  ],
  components: [],
  configure: () => [],
  manage({ spec }, managers) {
    const settings = settingsOf<MetricsSettings>(spec, id);
    const port = settings.port ?? 9090;
    managers.containerPort({ name: 'metrics', containerPort: port, protocol: 'TCP' });
    managers.servicePort({ name: 'metrics', port, targetPort: 'metrics', protocol: 'TCP' });
    managers.envVar({ name: 'METRICS_PORT', value: String(port) });
    managers.annotation('podTemplate', 'prometheus.io/scrape', 'true');
    managers.annotation('podTemplate', 'prometheus.io/port', String(port));
    managers.annotation('podTemplate', 'prometheus.io/path', settings.path ?? '/metrics');
  },
};
