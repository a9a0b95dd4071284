import { createObject, getObject, replaceObject, type ClusterConnection } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { CertificateState } from './certificate-rotation';

/** StoredCertificates is what a store holds, with the version to write it back at. */
export interface StoredCertificates {
  state?: CertificateState;
  version?: string;
}

/**
 * CertificateStore shares the webhook's certificates between replicas: every replica behind
 * one Service must serve a certificate the one caBundle trusts. `save` returns false when
 * another replica wrote first; read theirs then.
 */
export interface CertificateStore {
  load(): Promise<StoredCertificates>;
  save(state: CertificateState, version: string | undefined): Promise<boolean>;
}

const keys = { caCert: 'ca.crt', caKey: 'ca.key', cert: 'tls.crt', key: 'tls.key', trusted: 'trusted.crt', nextCert: 'next-ca.crt', nextKey: 'next-ca.key' } as const;

/** SecretCertificateStore keeps the certificates in a Kubernetes Secret (its keys never reach logs). */
export class SecretCertificateStore implements CertificateStore {
  constructor(private readonly connection: ClusterConnection, private readonly namespace: string, private readonly name: string) {}

  async load(): Promise<StoredCertificates> {
    const secret = await getObject(this.connection, { apiVersion: 'v1', kind: 'Secret', namespace: this.namespace, name: this.name });
    if (!secret) return {};
    const data = (secret.data ?? {}) as Record<string, string>;
    const text = (key: string) => (data[key] ? Buffer.from(data[key], 'base64').toString('utf8') : undefined);
    const [caCert, caKey, cert, key] = [text(keys.caCert), text(keys.caKey), text(keys.cert), text(keys.key)];
    if (!caCert || !caKey || !cert || !key) return { version: secret.metadata.resourceVersion };
    const nextCert = text(keys.nextCert);
    const nextKey = text(keys.nextKey);
    const trusted = (text(keys.trusted) ?? caCert).match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [caCert];
    const state: CertificateState = { ca: { certPem: caCert, keyPem: caKey }, serving: { certPem: cert, keyPem: key }, trusted, ...(nextCert && nextKey ? { next: { certPem: nextCert, keyPem: nextKey } } : {}) };
    return { state, version: secret.metadata.resourceVersion };
  }

  async save(state: CertificateState, version: string | undefined): Promise<boolean> {
    const encode = (value: string) => Buffer.from(value).toString('base64');
    const data: Record<string, string> = {
      [keys.caCert]: encode(state.ca.certPem), [keys.caKey]: encode(state.ca.keyPem),
      [keys.cert]: encode(state.serving.certPem), [keys.key]: encode(state.serving.keyPem),
      [keys.trusted]: encode(state.trusted.map((pem) => `${pem.trim()}\n`).join('')),
      ...(state.next ? { [keys.nextCert]: encode(state.next.certPem), [keys.nextKey]: encode(state.next.keyPem) } : {}),
    };
    const secret: KubernetesManifest = {
      apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
      metadata: { name: this.name, namespace: this.namespace, labels: { 'app.kubernetes.io/managed-by': 'tidemark', 'app.kubernetes.io/component': 'conversion-webhook' }, ...(version ? { resourceVersion: version } : {}) },
      data,
    };
    if (!version) return (await createObject(this.connection, secret)) === 'created';
    return (await replaceObject(this.connection, secret)) === 'replaced';
  }
}

/** MemoryCertificateStore keeps the certificates in this process: one replica, or API servers on this machine. */
export class MemoryCertificateStore implements CertificateStore {
  private stored: StoredCertificates = {};
  private counter = 0;

  async load(): Promise<StoredCertificates> {
    return this.stored;
  }

  async save(state: CertificateState, version: string | undefined): Promise<boolean> {
    if (version !== this.stored.version) return false;
    this.counter += 1;
    this.stored = { state, version: String(this.counter) };
    return true;
  }
}
