// @peculiar/x509 resolves its ASN.1 schemas through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** KeyPairPem is a certificate and its private key, both PEM. */
export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

/** WebhookCertificates is the webhook's CA, its serving certificate, and the CAs the API servers trust. */
export interface WebhookCertificates {
  ca: KeyPairPem;
  serving: KeyPairPem;
  /** CA certificates still trusted (the current one first, then one being retired). */
  trusted: string[];
}

/** createCertificateAuthority makes a self-signed ECDSA P-256 CA valid from `now` for `validityMs`. */
export async function createCertificateAuthority(now: Date, validityMs: number): Promise<KeyPairPem> {
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=Tidemark conversion webhook CA ${now.toISOString()}`,
    notBefore: backdated(now),
    notAfter: new Date(now.getTime() + validityMs),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  }, webcrypto);
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/**
 * issueServingCertificate signs a server certificate for the webhook's host names and IPs
 * with the CA, valid from `now` for `validityMs` (never past the CA's own end).
 */
export async function issueServingCertificate(ca: KeyPairPem, hosts: readonly string[], now: Date, validityMs: number): Promise<KeyPairPem> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', pemBody(ca.keyPem), algorithm, false, ['sign']);
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const notAfter = new Date(Math.min(now.getTime() + validityMs, caCert.notAfter.getTime()));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${hosts[0] ?? 'tidemark-conversion-webhook'}`,
    issuer: caCert.subject,
    notBefore: backdated(now),
    notAfter,
    signingAlgorithm: algorithm,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((host) => (isIpAddress(host) ? { type: 'ip', value: host } : { type: 'dns', value: host }))),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false, webcrypto),
    ],
  }, webcrypto);
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** validityOf reads a PEM certificate's validity window. */
export function validityOf(certPem: string): { notBefore: Date; notAfter: Date } {
  const cert = new NodeX509Certificate(certPem);
  return { notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function pemBody(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

// A minute back, so an API server whose clock is slightly behind still accepts a fresh cert.
function backdated(now: Date): Date {
  return new Date(now.getTime() - 60_000);
}

function serialNumber(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive
  return Buffer.from(bytes).toString('hex');
}

function isIpAddress(host: string): boolean {
  return isIP(host) !== 0;
}
