import { describe, expect, it } from 'vitest';
import { containerRunOf, PodRunError, volumeFilesOf, type PodObjects, type RunnablePod } from './pod-container-run';

/** A Pod as the API server returns one of the chart's reconciler Pods (trimmed), with the ServiceAccount volume admission adds. */
function chartPod(): RunnablePod {
  return {
    metadata: { name: 'tidemark-reconciler-7d9f-abcde', namespace: 'tidemark' },
    spec: {
      serviceAccountName: 'tidemark-reconciler',
      terminationGracePeriodSeconds: 60,
      securityContext: { runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{
        name: 'reconciler',
        image: 'tidemark/reconciler@sha256:abc',
        imagePullPolicy: 'IfNotPresent',
        env: [
          { name: 'TIDEMARK_CONFIG', value: '/etc/tidemark/config/tidemark.yaml' },
          { name: 'TIDEMARK_REDIS_PASSWORD', valueFrom: { secretKeyRef: { name: 'tidemark-redis', key: 'password' } } },
          { name: 'TIDEMARK_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        ],
        ports: [{ name: 'http', containerPort: 9464 }, { name: 'conversion', containerPort: 9443 }],
        startupProbe: { httpGet: { path: '/healthz', port: 'http' } },
        readinessProbe: { httpGet: { path: '/readyz', port: 'http', scheme: 'HTTP' } },
        securityContext: { runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
        volumeMounts: [
          { name: 'config', mountPath: '/etc/tidemark/config', readOnly: true },
          { name: 'git-credentials', mountPath: '/etc/tidemark/git', readOnly: true },
          { name: 'git-cache', mountPath: '/var/cache/tidemark' },
          { name: 'tmp', mountPath: '/tmp' },
          { name: 'kube-api-access-x1', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
        ],
      }],
      volumes: [
        { name: 'config', configMap: { name: 'tidemark-reconciler-config' } },
        { name: 'git-credentials', secret: { secretName: 'tidemark-git-credentials', optional: true } },
        { name: 'git-cache', emptyDir: { sizeLimit: '2Gi' } },
        { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '256Mi' } },
        {
          name: 'kube-api-access-x1',
          projected: {
            sources: [
              { serviceAccountToken: { path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ],
    },
  };
}

const objects: PodObjects = {
  configMaps: { 'tidemark-reconciler-config': { 'tidemark.yaml': 'cacheDir: /var/cache/tidemark\n' }, 'kube-root-ca.crt': { 'ca.crt': 'PEM' } },
  secrets: { 'tidemark-redis': { password: Buffer.from('s3cret').toString('base64') } },
  serviceAccountToken: 'a.jwt.token',
};

const folders = { config: '/run/x/config', 'git-credentials': '/run/x/git-credentials', 'git-cache': '/run/x/git-cache', 'kube-api-access-x1': '/run/x/sa' };

describe('volumeFilesOf', () => {
  it('gives ConfigMap, Secret and projected volumes their files, an emptyDir an empty folder (a tmpfs in memory), and an absent optional Secret no files', () => {
    const volumes = volumeFilesOf(chartPod(), objects);
    expect(volumes.config).toEqual({ kind: 'files', files: { 'tidemark.yaml': Buffer.from('cacheDir: /var/cache/tidemark\n') } });
    expect(volumes['git-credentials']).toEqual({ kind: 'files', files: {} });
    expect(volumes['git-cache']).toEqual({ kind: 'empty' });
    expect(volumes.tmp).toEqual({ kind: 'tmpfs', sizeBytes: 256 * 1024 ** 2 });
    expect(volumes['kube-api-access-x1']).toEqual({ kind: 'files', files: { token: Buffer.from('a.jwt.token'), 'ca.crt': Buffer.from('PEM'), namespace: Buffer.from('tidemark') } });
  });

  it('refuses a missing ConfigMap that is not optional, an unknown volume kind and a field it cannot know, naming the Pod and field', () => {
    expect(() => volumeFilesOf(chartPod(), { ...objects, configMaps: {} })).toThrow('pod tidemark/tidemark-reconciler-7d9f-abcde spec.volumes[config].configMap: ConfigMap tidemark-reconciler-config does not exist, and the volume is not optional');
    const hostPath = chartPod();
    hostPath.spec.volumes!.push({ name: 'host' } as never);
    expect(() => volumeFilesOf(hostPath, objects)).toThrow(/spec\.volumes\[host\]: only emptyDir, configMap, secret and projected/);
    const nodeName = chartPod();
    nodeName.spec.volumes![4]!.projected!.sources[2]!.downwardAPI!.items[0]!.fieldRef!.fieldPath = 'spec.nodeName';
    expect(() => volumeFilesOf(nodeName, objects)).toThrow(PodRunError);
  });
});

describe('containerRunOf', () => {
  it('runs the container as the Pod says: user and groups, dropped capabilities, read-only root, env, mounts, probes', () => {
    const run = containerRunOf(chartPod(), 'reconciler', objects, { name: 'tm-x', volumeFolders: folders, apiServer: { host: '127.0.0.1', port: 6443 } });
    expect(run.args).toEqual([
      '--name', 'tm-x', '--network', 'host', '--pull', 'missing', '--stop-timeout', '60',
      '--user', '10001:10001', '--group-add', '10001', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--read-only', '--read-only-tmpfs=false',
      '--env', 'KUBERNETES_SERVICE_HOST=127.0.0.1', '--env', 'KUBERNETES_SERVICE_PORT=6443',
      '--env', 'TIDEMARK_CONFIG=/etc/tidemark/config/tidemark.yaml', '--env', 'TIDEMARK_REDIS_PASSWORD', '--env', 'TIDEMARK_NAMESPACE=tidemark',
      '--volume', '/run/x/config:/etc/tidemark/config:ro',
      '--volume', '/run/x/git-credentials:/etc/tidemark/git:ro',
      '--volume', '/run/x/git-cache:/var/cache/tidemark:rw',
      '--tmpfs', `/tmp:rw,mode=1777,size=${256 * 1024 ** 2}`,
      '--volume', '/run/x/sa:/var/run/secrets/kubernetes.io/serviceaccount:ro',
      'tidemark/reconciler@sha256:abc',
    ]);
    // A Secret's value goes to podman's environment, never its command line.
    expect(run.secretEnv).toEqual({ TIDEMARK_REDIS_PASSWORD: 's3cret' });
    expect(run.args.join(' ')).not.toContain('s3cret');
    expect(run.probes).toEqual({ startup: 'http://127.0.0.1:9464/healthz', readiness: 'http://127.0.0.1:9464/readyz' });
  });

  it('expands $(NAME) as a kubelet does, and a value holding a Secret\'s goes to podman\'s environment too', () => {
    const pod = chartPod();
    pod.spec.containers[0]!.env!.push(
      { name: 'TIDEMARK_REDIS_URL', value: 'redis://default:$(TIDEMARK_REDIS_PASSWORD)@tidemark-redis:6379' },
      { name: 'PLAIN', value: '$(TIDEMARK_NAMESPACE)/$$(TIDEMARK_NAMESPACE)/$(UNDEFINED)' },
    );
    const run = containerRunOf(pod, 'reconciler', objects, { name: 'x', volumeFolders: folders, apiServer: { host: 'h', port: 1 } });
    expect(run.secretEnv).toEqual({ TIDEMARK_REDIS_PASSWORD: 's3cret', TIDEMARK_REDIS_URL: 'redis://default:s3cret@tidemark-redis:6379' });
    expect(run.args).toContain('TIDEMARK_REDIS_URL');
    expect(run.args).toContain('PLAIN=tidemark/$(TIDEMARK_NAMESPACE)/$(UNDEFINED)');
    expect(run.args.join(' ')).not.toContain('s3cret');
  });

  it('takes the container\'s user over the Pod\'s, its command as the entrypoint and its args after the image', () => {
    const pod = chartPod();
    const container = pod.spec.containers[0]!;
    container.securityContext = { runAsUser: 2000, readOnlyRootFilesystem: false };
    container.command = ['node', 'main.js'];
    container.args = ['--role', 'worker'];
    container.workingDir = '/app';
    const run = containerRunOf(pod, 'reconciler', objects, { name: 'tm-x', volumeFolders: folders, apiServer: { host: 'h', port: 1 } });
    expect(run.args.slice(run.args.indexOf('--user'), run.args.indexOf('--user') + 2)).toEqual(['--user', '2000:10001']);
    expect(run.args).not.toContain('--read-only');
    expect(run.args.slice(-7)).toEqual(['--workdir', '/app', '--entrypoint', '["node","main.js"]', 'tidemark/reconciler@sha256:abc', '--role', 'worker']);
  });

  it('refuses what it cannot run as the Pod says, naming the Pod, container and field', () => {
    const missingKey = { ...objects, secrets: {} };
    expect(() => containerRunOf(chartPod(), 'reconciler', missingKey, { name: 'x', volumeFolders: folders, apiServer: { host: 'h', port: 1 } }))
      .toThrow('pod tidemark/tidemark-reconciler-7d9f-abcde container reconciler env TIDEMARK_REDIS_PASSWORD: Secret tidemark-redis has no key password');
    expect(() => containerRunOf(chartPod(), 'dashboard', objects, { name: 'x', volumeFolders: folders, apiServer: { host: 'h', port: 1 } })).toThrow(/has no container dashboard \(it has reconciler\)/);
    expect(() => containerRunOf(chartPod(), 'reconciler', objects, { name: 'x', volumeFolders: {}, apiServer: { host: 'h', port: 1 } })).toThrow(/volumeMounts \/etc\/tidemark\/config: no folder was laid out for volume config/);
    const namedPort = chartPod();
    namedPort.spec.containers[0]!.readinessProbe = { httpGet: { path: '/readyz', port: 'metrics' } };
    expect(() => containerRunOf(namedPort, 'reconciler', objects, { name: 'x', volumeFolders: folders, apiServer: { host: 'h', port: 1 } })).toThrow(/readinessProbe\.httpGet\.port: no container port is named metrics/);
  });
});
