import { describe, expect, it, vi } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { refuseCommandRunningUsers } from './kubeconfig-guard';

function configWith(user: Record<string, unknown>): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'x', cluster: { server: 'https://127.0.0.1:1' } }],
    contexts: [{ name: 'x', context: { cluster: 'x', user: 'x' } }],
    users: [{ name: 'x', user }],
  }));
  return config;
}

const tokenPath = '/var/run/secrets/kubernetes.io/serviceaccount/token';

describe('refuseCommandRunningUsers', () => {
  it.each([
    ['tokenFile with config.exec (ExecAuth runs it whatever the name)', { 'auth-provider': { name: 'tokenFile', config: { exec: { command: '/bin/sh', args: ['-c', 'id'] } } } }],
    ['tokenFile with the in-cluster path and config.exec', { 'auth-provider': { name: 'tokenFile', config: { tokenFile: tokenPath, exec: { command: '/bin/sh' } } } }],
    ['tokenFile with another path', { 'auth-provider': { name: 'tokenFile', config: { tokenFile: '/etc/tidemark/redis-password' } } }],
    ['any name with config.exec', { 'auth-provider': { name: 'innocent', config: { exec: { command: '/bin/sh' } } } }],
    ['name exec', { 'auth-provider': { name: 'exec', config: {} } }],
    ['gcp with an access token only', { 'auth-provider': { name: 'gcp', config: { 'access-token': 't' } } }],
    ['gcp with cmd-path', { 'auth-provider': { name: 'gcp', config: { 'cmd-path': '/bin/sh' } } }],
    ['azure', { 'auth-provider': { name: 'azure', config: { 'access-token': 't' } } }],
    ['oidc', { 'auth-provider': { name: 'oidc', config: { 'idp-issuer-url': 'https://issuer.example' } } }],
    ['exec plugin', { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh' } }],
  ])('refuses %s', (_name, user) => {
    expect(() => refuseCommandRunningUsers(configWith(user), 'edge', false)).toThrow(/cluster edge: users\[x\]\.(auth-provider|exec)/);
  });

  it('accepts exactly the user loadFromCluster builds', () => {
    const config = new KubeConfig();
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.0.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    try {
      config.loadFromCluster();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(() => refuseCommandRunningUsers(config, 'in-cluster', false)).not.toThrow();
    expect(() => refuseCommandRunningUsers(configWith({ 'auth-provider': { name: 'tokenFile', config: { tokenFile: tokenPath } } }), 'file', false)).not.toThrow();
  });

  it('accepts tokens and client certificates, and anything when exec plugins are allowed', () => {
    expect(() => refuseCommandRunningUsers(configWith({ token: 't' }), 'edge', false)).not.toThrow();
    expect(() => refuseCommandRunningUsers(configWith({ 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5' }), 'edge', false)).not.toThrow();
    expect(() => refuseCommandRunningUsers(configWith({ 'auth-provider': { name: 'tokenFile', config: { exec: { command: '/bin/sh' } } } }), 'edge', true)).not.toThrow();
  });
});
