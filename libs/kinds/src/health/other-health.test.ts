import { describe, expect, it } from 'vitest';
import { healthOf } from './health-of';
import { condition, live } from '../testing/health-test-objects';

describe('healthOf CustomResourceDefinition', () => {
  const crd = (conditions: unknown[]) => ({ ...live('apiextensions.k8s.io/v1', 'CustomResourceDefinition', { status: { conditions } }), metadata: { name: 'webapps.tidemark.dev' } });

  it('is Ready when Established and NamesAccepted', () => {
    expect(healthOf(crd([condition('NamesAccepted', 'True'), condition('Established', 'True')]))).toEqual({ status: 'Ready', message: 'CustomResourceDefinition webapps.tidemark.dev is established.' });
  });

  it('is Progressing until Established', () => {
    expect(healthOf(crd([condition('NamesAccepted', 'True')])).status).toBe('Progressing');
  });

  it('is Failed when its names conflict', () => {
    expect(healthOf(crd([condition('NamesAccepted', 'False', 'MultipleNamesNotAllowed', '"cw" is already in use')]))).toMatchObject({ status: 'Failed', message: expect.stringContaining('"cw" is already in use') });
  });
});

describe('healthOf PersistentVolumeClaim', () => {
  it('follows the phase', () => {
    expect(healthOf(live('v1', 'PersistentVolumeClaim', { status: { phase: 'Bound' } })).status).toBe('Ready');
    expect(healthOf(live('v1', 'PersistentVolumeClaim', { status: { phase: 'Lost' } })).status).toBe('Failed');
    expect(healthOf(live('v1', 'PersistentVolumeClaim', { spec: { storageClassName: 'fast' }, status: { phase: 'Pending' } }))).toMatchObject({
      status: 'Progressing',
      message: expect.stringContaining('of storage class fast'),
    });
  });
});

describe('healthOf Pod', () => {
  it('is Ready when Ready or Succeeded', () => {
    expect(healthOf(live('v1', 'Pod', { status: { phase: 'Running', conditions: [condition('Ready', 'True')] } })).status).toBe('Ready');
    expect(healthOf(live('v1', 'Pod', { status: { phase: 'Succeeded' } })).status).toBe('Ready');
  });

  it('is Failed when Failed or a container is stuck', () => {
    expect(healthOf(live('v1', 'Pod', { status: { phase: 'Failed', message: 'OOMKilled' } })).message).toContain('OOMKilled');
    const crashing = live('v1', 'Pod', { status: { phase: 'Running', containerStatuses: [{ name: 'app', state: { waiting: { reason: 'CrashLoopBackOff' } } }] } });
    expect(healthOf(crashing)).toEqual({ status: 'Failed', message: 'Pod shop/web container app is in CrashLoopBackOff; fix its image or configuration.' });
  });

  it('is Progressing while starting', () => {
    const starting = live('v1', 'Pod', { status: { phase: 'Pending', containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ContainerCreating' } } }] } });
    expect(healthOf(starting).status).toBe('Progressing');
  });
});

describe('healthOf Service', () => {
  it('is Ready at once unless it is a LoadBalancer', () => {
    expect(healthOf(live('v1', 'Service', { spec: { type: 'ClusterIP' } })).status).toBe('Ready');
    expect(healthOf(live('v1', 'Service', { spec: {} })).status).toBe('Ready');
  });

  it('waits for a LoadBalancer ingress address', () => {
    expect(healthOf(live('v1', 'Service', { spec: { type: 'LoadBalancer' }, status: { loadBalancer: {} } }))).toMatchObject({ status: 'Progressing', message: expect.stringContaining('load balancer address') });
    expect(healthOf(live('v1', 'Service', { spec: { type: 'LoadBalancer' }, status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } })).status).toBe('Ready');
  });
});

describe('healthOf HorizontalPodAutoscaler', () => {
  it('is Ready when scaling, Progressing without metrics, Failed when it cannot scale', () => {
    const hpa = (conditions: unknown[]) => live('autoscaling/v2', 'HorizontalPodAutoscaler', { status: { currentReplicas: 2, desiredReplicas: 3, conditions } });
    expect(healthOf(hpa([condition('AbleToScale', 'True'), condition('ScalingActive', 'True')]))).toEqual({ status: 'Ready', message: 'HorizontalPodAutoscaler shop/web runs 2 replicas (desired 3).' });
    expect(healthOf(hpa([condition('ScalingActive', 'False', 'FailedGetResourceMetric', 'missing request for cpu')])).status).toBe('Progressing');
    expect(healthOf(hpa([condition('AbleToScale', 'False', 'FailedGetScale', 'deployments "web" not found')])).status).toBe('Failed');
  });

  it('applies to autoscaling/v1 too', () => {
    const v1 = live('autoscaling/v1', 'HorizontalPodAutoscaler', { status: { conditions: [condition('AbleToScale', 'False')] } });
    expect(healthOf(v1).status).toBe('Failed');
  });
});

describe('healthOf other kinds (generic rule)', () => {
  it('is Ready once applied when it has no status', () => {
    expect(healthOf(live('v1', 'ConfigMap'))).toEqual({ status: 'Ready', message: 'ConfigMap shop/web is applied.' });
  });

  it('follows a Ready condition', () => {
    expect(healthOf(live('cert-manager.io/v1', 'Certificate', { status: { conditions: [condition('Ready', 'True')] } })).status).toBe('Ready');
    expect(healthOf(live('cert-manager.io/v1', 'Certificate', { status: { conditions: [condition('Ready', 'False', 'Issuing', 'Issuing certificate')] } }))).toEqual({
      status: 'Progressing',
      message: 'Certificate shop/web is not ready: Issuing certificate.',
    });
  });

  it('is Failed when Stalled', () => {
    expect(healthOf(live('example.com/v1', 'Widget', { status: { conditions: [condition('Stalled', 'True', 'Invalid', 'spec.size must be positive')] } })).status).toBe('Failed');
  });

  it('is Progressing while observedGeneration lags', () => {
    expect(healthOf(live('example.com/v1', 'Widget', { generation: 5, status: { observedGeneration: 4, conditions: [condition('Ready', 'True')] } })).status).toBe('Progressing');
  });

  it('does not treat a same-named kind of another group as a built-in', () => {
    expect(healthOf(live('example.com/v1', 'Deployment', { spec: { replicas: 3 } })).status).toBe('Ready');
  });
});
