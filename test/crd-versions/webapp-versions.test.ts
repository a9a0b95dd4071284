// WebApp v1alpha1 and v1beta1 on a real kube-apiserver that calls Tidemark's conversion webhook
// over HTTPS: reading either version, kubectl's deprecation warning, Git in either version with no
// false drift, and a CA renewal the API server follows. The suite changes the WebApp CRD, so it
// runs on a control plane of its own.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getObject, waitForEstablished } from '@tidemark/cluster';
import { SecretCertificateStore, installBuiltinCrds, startConversionWebhook, type RunningConversionWebhook } from '@tidemark/conversion';
import { createDefaultRegistry, v1alpha1FieldsAnnotation, v1beta1FieldsAnnotation } from '@tidemark/kinds';
import { kubeTestenvBinary, startControlPlane, type ControlPlane } from '@tidemark/testing';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `versions-${randomUUID().slice(0, 8)}`;
const crdName = 'webapps.tidemark.dev';
const quiet = { info: () => undefined, warn: () => undefined };
let plane: ControlPlane;
let webhook: RunningConversionWebhook;
let harness: PipelineHarness;
let webhookPort = 0;

/** kubectlWithWarnings runs kubectl and keeps stderr, where kubectl prints API warnings. */
function kubectlWithWarnings(args: string[], input = ''): Promise<{ stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(kubeTestenvBinary, ['kubectl', '--kubeconfig', plane.kubeconfigPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done({ stdout, stderr }) : fail(new Error(`kubectl ${args.join(' ')}: ${stderr}`))));
    child.stdin.end(input);
  });
}

const getJson = async (resource: string, name: string) => JSON.parse(await plane.kubectl(['get', resource, name, '-n', namespace, '-o', 'json'])) as { metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown> };

async function publish(): Promise<void> {
  await installBuiltinCrds(harness.connection, harness.kinds, webhook.conversion());
  await waitForEstablished(harness.connection, [crdName]);
}

async function crdCaBundle(): Promise<string[]> {
  const crd = (await getObject(harness.connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crdName })) as { spec: { conversion: { webhook: { clientConfig: { caBundle: string } } } } } | undefined;
  const pem = Buffer.from(crd?.spec.conversion.webhook.clientConfig.caBundle ?? '', 'base64').toString();
  return pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
}

/** servedCertificate is the certificate the webhook presents to a new connection. */
function servedCertificate(): Promise<X509Certificate> {
  return servedCertificateAt(webhookPort);
}

function servedCertificateAt(port: number): Promise<X509Certificate> {
  return new Promise((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      done(new X509Certificate(socket.getPeerX509Certificate()!.raw));
      socket.end();
    });
    socket.on('error', fail);
  });
}

beforeAll(async () => {
  plane = await startControlPlane({ name: 'versions' });
  const kinds = createDefaultRegistry();
  webhook = await startConversionWebhook({
    host: '127.0.0.1', port: 0, clientConfig: { loopback: true }, certificateHosts: ['127.0.0.1'],
    checkIntervalMs: 60_000, caValidityMs: 365 * 24 * 3600_000, servingValidityMs: 30 * 24 * 3600_000, migrationObjectsPerSecond: 20,
  }, kinds, quiet);
  webhookPort = Number(webhook.address.split(':').pop());
  harness = await startPipelineHarness(plane.kubeconfig, inject('redisUrl'), { kinds });
  await publish();
  await plane.kubectl(['create', 'namespace', namespace]);
});
afterAll(async () => {
  await harness?.stop();
  await plane?.stop();
  await webhook?.stop();
});

describe('WebApp served as v1alpha1 and v1beta1', () => {
  it('reads an object created as v1alpha1 as v1beta1 and back, and kubectl warns that v1alpha1 is deprecated', async () => {
    const created = await kubectlWithWarnings(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'shop', namespace },
      spec: { image: 'ghcr.io/acme/shop:1.4.2', features: { ingress: { enabled: true, host: 'shop.example.com' }, config: { enabled: false, data: { MODE: 'dark' } } } },
    }));
    expect(created.stderr).toContain('Warning: tidemark.dev/v1alpha1 WebApp is deprecated; use tidemark.dev/v1beta1');

    const beta = await getJson('webapps.v1beta1.tidemark.dev', 'shop');
    expect(beta.spec.image).toEqual({ repository: 'ghcr.io/acme/shop', tag: '1.4.2' });
    expect(beta.spec.features).toEqual([{ name: 'ingress', ingress: { host: 'shop.example.com', path: '/' } }]);
    expect(JSON.parse(beta.metadata.annotations?.[v1alpha1FieldsAnnotation] ?? '{}')).toEqual({ disabledFeatures: { config: { enabled: false, data: { MODE: 'dark' }, mountPath: '/etc/config' } } });

    const alpha = await getJson('webapps.v1alpha1.tidemark.dev', 'shop');
    expect(alpha.spec.image).toBe('ghcr.io/acme/shop:1.4.2');
    expect(alpha.spec.features).toEqual({ config: { enabled: false, data: { MODE: 'dark' }, mountPath: '/etc/config' }, ingress: { enabled: true, host: 'shop.example.com', path: '/' } });
    expect(alpha.metadata.annotations?.[v1alpha1FieldsAnnotation]).toBeUndefined();
  });

  it('keeps a v1beta1-only field through a v1alpha1 read, in an annotation', async () => {
    await plane.kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'tidemark.dev/v1beta1', kind: 'WebApp', metadata: { name: 'pinned', namespace },
      spec: { image: { repository: 'ghcr.io/acme/pinned', tag: '2.0', pullPolicy: 'Always' }, features: [{ name: 'metrics' }] },
    }));
    const alpha = await getJson('webapps.v1alpha1.tidemark.dev', 'pinned');
    expect(alpha.spec.image).toBe('ghcr.io/acme/pinned:2.0');
    expect(JSON.parse(alpha.metadata.annotations?.[v1beta1FieldsAnnotation] ?? '{}')).toEqual({ imagePullPolicy: 'Always' });
    expect((await getJson('webapps.v1beta1.tidemark.dev', 'pinned')).spec.image).toEqual({ repository: 'ghcr.io/acme/pinned', tag: '2.0', pullPolicy: 'Always' });
  });

  it('is explained field by field by kubectl explain, in both versions', async () => {
    const spec = await plane.kubectl(['explain', 'webapps.spec']);
    expect(spec).toContain('VERSION:    v1beta1');
    expect(spec).toContain('What the app is and which features it uses');
    expect(spec).toMatch(/features\s+<\[\]Object>\s+The features this app uses, each named once/);
    const image = await plane.kubectl(['explain', 'webapps.spec.image.tag']);
    expect(image).toContain('Image tag, e.g. 1.4.2');
    const alpha = await plane.kubectl(['explain', 'webapps.spec.features.ingress.enabled', '--api-version=tidemark.dev/v1alpha1']);
    expect(alpha).toContain('Turn the Ingress on.');
    const status = await plane.kubectl(['explain', 'webapps.status.conditions.reason']);
    expect(status).toContain('A PascalCase word saying why');
  });

  it('lists both versions with kubectl get, each with its own columns', async () => {
    const beta = await plane.kubectl(['get', 'webapps.v1beta1.tidemark.dev', '-n', namespace]);
    expect(beta).toMatch(/NAME\s+IMAGE\s+TAG\s+REPLICAS\s+AVAILABLE\s+READY\s+REASON\s+AGE/);
    expect(beta).toMatch(/shop\s+ghcr\.io\/acme\/shop\s+1\.4\.2/);
    const { stdout: alpha, stderr } = await kubectlWithWarnings(['get', 'webapps.v1alpha1.tidemark.dev', '-n', namespace]);
    expect(alpha).toMatch(/NAME\s+IMAGE\s+REPLICAS\s+AVAILABLE\s+READY\s+REASON\s+AGE/);
    expect(alpha).toMatch(/pinned\s+ghcr\.io\/acme\/pinned:2\.0/);
    expect(stderr).toContain('is deprecated');
  });

  it('applies a WebApp from Git in either version: moving it from v1alpha1 to v1beta1 changes nothing it owns and is no drift', async () => {
    const key = `tidemark.dev/WebApp/${namespace}/git-app`;
    await harness.repo.write('app.yaml', [
      'apiVersion: tidemark.dev/v1alpha1', 'kind: WebApp', `metadata: {name: git-app, namespace: ${namespace}}`,
      'spec:', '  image: nginx:1.27', '  replicas: 2', '  features:', '    metrics: {enabled: true, port: 9100}', '    ingress: {enabled: false, host: old.example.com}', '',
    ].join('\n'));
    await harness.pushAndReconcile('git-app as v1alpha1');
    const deployment = await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'git-app' });
    expect(deployment).toBeDefined();
    await harness.reconcileKey(key, 'drift');
    expect((await harness.statusStore.get(harness.cluster, key))?.drift ?? []).toEqual([]);

    await harness.repo.write('app.yaml', [
      'apiVersion: tidemark.dev/v1beta1', 'kind: WebApp', `metadata: {name: git-app, namespace: ${namespace}}`,
      'spec:', '  image: {repository: nginx, tag: "1.27"}', '  replicas: 2', '  features:', '    - {name: metrics, metrics: {port: 9100}}', '',
    ].join('\n'));
    await harness.pushAndReconcile('git-app as v1beta1');
    const after = await getObject(harness.connection, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'git-app' });
    expect(after?.metadata.resourceVersion).toBe(deployment?.metadata.resourceVersion);
    await harness.reconcileKey(key, 'drift');
    const status = await harness.statusStore.get(harness.cluster, key);
    expect(status?.drift ?? []).toEqual([]);
    expect(status?.apiVersion).toBe('tidemark.dev/v1beta1');
    expect((await getJson('webapps.v1beta1.tidemark.dev', 'git-app')).spec.image).toEqual({ repository: 'nginx', tag: '1.27' });
  });

  it('renews its CA in two steps; the CRD trusts old and new, and the API server keeps converting', async () => {
    const firstCa = await crdCaBundle();
    expect(firstCa).toHaveLength(1);
    const firstServed = await servedCertificate();
    expect(firstServed.checkIssued(new X509Certificate(firstCa[0]!))).toBe(true);

    await webhook.checkNow(publish, 'ca');
    const bundle = await crdCaBundle();
    expect(bundle).toHaveLength(2);
    expect(bundle).toContain(firstCa[0]);
    expect((await servedCertificate()).fingerprint256).toBe(firstServed.fingerprint256);
    expect((await getJson('webapps.v1alpha1.tidemark.dev', 'pinned')).spec.image).toBe('ghcr.io/acme/pinned:2.0');

    await webhook.checkNow(publish);
    const served = await servedCertificate();
    const newCa = bundle.find((pem) => pem !== firstCa[0])!;
    expect(served.fingerprint256).not.toBe(firstServed.fingerprint256);
    expect(served.checkIssued(new X509Certificate(newCa))).toBe(true);
    expect((await getJson('webapps.v1alpha1.tidemark.dev', 'shop')).spec.image).toBe('ghcr.io/acme/shop:1.4.2');
  });

  it('puts the caBundle back when someone changes it', async () => {
    const ours = await crdCaBundle();
    const other = Buffer.from(new X509Certificate((await servedCertificate()).raw).toString()).toString('base64');
    await plane.kubectl(['patch', 'crd', crdName, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/conversion/webhook/clientConfig/caBundle', value: other }])]);
    expect(await crdCaBundle()).not.toEqual(ours);
    await webhook.checkNow(publish);
    expect(await crdCaBundle()).toEqual(ours);
  });

  it('shares its certificates between replicas through a Secret, so one caBundle trusts them all', async () => {
    const store = () => new SecretCertificateStore(harness.connection, namespace, 'conversion-certs');
    const settings = { host: '127.0.0.1', port: 0, clientConfig: { loopback: true as const }, certificateHosts: ['127.0.0.1'], checkIntervalMs: 60_000, caValidityMs: 365 * 24 * 3600_000, servingValidityMs: 30 * 24 * 3600_000, migrationObjectsPerSecond: 20 };
    const [first, second] = [await startConversionWebhook(settings, harness.kinds, quiet, store()), await startConversionWebhook(settings, harness.kinds, quiet, store())];
    try {
      const served = (replica: RunningConversionWebhook) => servedCertificateAt(Number(replica.address.split(':').pop()));
      expect((await served(second)).fingerprint256).toBe((await served(first)).fingerprint256);
      expect(second.conversion().caBundle).toBe(first.conversion().caBundle);
      await first.checkNow(async () => undefined, 'serving');
      await second.checkNow(async () => undefined);
      expect((await served(second)).fingerprint256).toBe((await served(first)).fingerprint256);
      const secret = await plane.kubectl(['get', 'secret', 'conversion-certs', '-n', namespace, '-o', 'jsonpath={.data}']);
      expect(Object.keys(JSON.parse(secret) as object).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key', 'trusted.crt']);
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});

