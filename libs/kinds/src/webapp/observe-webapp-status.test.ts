import { describe, expect, it } from 'vitest';
import { observeWebAppStatus } from './observe-webapp-status';

const metadata = { name: 'web', namespace: 'shop' };

describe('observeWebAppStatus', () => {
  it('reports the Deployment readyReplicas', () => {
    const owned = [
      { apiVersion: 'v1', kind: 'Service', metadata, status: { readyReplicas: 9 } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata, status: { readyReplicas: 2, replicas: 3 } },
    ];
    expect(observeWebAppStatus(owned)).toEqual({ readyReplicas: 2 });
  });

  it('reports 0 before the Deployment has a status', () => {
    expect(observeWebAppStatus([{ apiVersion: 'apps/v1', kind: 'Deployment', metadata }])).toEqual({ readyReplicas: 0 });
    expect(observeWebAppStatus([])).toEqual({ readyReplicas: 0 });
  });
});
