import { Type } from '@sinclair/typebox';
import type { WebAppFeature } from './webapp-feature';
import { settingsOf } from './webapp-feature';

/** AutoscalingSettings is spec.features.autoscaling. */
export type AutoscalingSettings = { enabled: boolean; minReplicas: number; maxReplicas: number; targetCPUUtilization: number };

const id = 'autoscaling';

/**
 * autoscalingFeature adds a HorizontalPodAutoscaler on CPU and removes `replicas` from the
 * Deployment: under server-side apply, a field Tidemark omits stays with the HPA, so the two
 * never fight over the replica count.
 */
export const autoscalingFeature: WebAppFeature = {
  id,
  schema: Type.Object({
    enabled: Type.Optional(Type.Boolean({ default: false, description: 'Turn autoscaling on.' })),
    minReplicas: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'Fewest pods the autoscaler keeps.' })),
    maxReplicas: Type.Optional(Type.Integer({ minimum: 1, description: 'Most pods the autoscaler may run; required when enabled.' })),
    targetCPUUtilization: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 80, description: 'Target average CPU utilisation, in percent of requests.' })),
  }, {
    description: 'Scale the Deployment on CPU with a HorizontalPodAutoscaler. Do not set spec.replicas with it.',
    'x-kubernetes-validations': [
      { rule: '!self.enabled || has(self.maxReplicas)', message: 'features.autoscaling.maxReplicas is required when autoscaling is enabled' },
      { rule: '!has(self.maxReplicas) || !has(self.minReplicas) || self.maxReplicas >= self.minReplicas', message: 'features.autoscaling.maxReplicas must be at least minReplicas' },
    ],
  }),
  specValidations: [
    {
      // Rejected rather than ignored: a replica count that silently does nothing misleads.
      rule: '!(has(self.features) && has(self.features.autoscaling) && has(self.features.autoscaling.enabled) && self.features.autoscaling.enabled && has(self.replicas))',
      message: 'spec.replicas must not be set when features.autoscaling is enabled; the HorizontalPodAutoscaler owns the replica count (use minReplicas and maxReplicas)',
    },
  ],
  specValidationsV1beta1: [
    {
      rule: '!(has(self.features) && self.features.exists(f, f.name == \'autoscaling\') && has(self.replicas))',
      message: 'spec.replicas must not be set when the autoscaling feature is listed; the HorizontalPodAutoscaler owns the replica count (use minReplicas and maxReplicas)',
    },
  ],
  components: [{ name: 'hpa', apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }],
  configure: () => ['hpa'],
  manage({ spec, identity }, managers) {
    const settings = settingsOf<AutoscalingSettings>(spec, id);
    const minReplicas = settings.minReplicas ?? 1;
    managers.field('hpa', ['spec'], {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: identity.name },
      minReplicas,
      maxReplicas: settings.maxReplicas ?? minReplicas,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: settings.targetCPUUtilization ?? 80 } } }],
    });
    managers.field('deployment', ['spec', 'replicas'], undefined);
  },
};
