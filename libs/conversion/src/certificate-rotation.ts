import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { createCertificateAuthority, issueServingCertificate, validityOf, type KeyPairPem, type WebhookCertificates } from './webhook-certificates';

/** RotationPolicy says how long certificates live; each is renewed when a third of its life is left. */
export interface RotationPolicy {
  /** @defaultValue one year */
  caValidityMs: number;
  /** @defaultValue 30 days */
  servingValidityMs: number;
}

export const defaultRotationPolicy: RotationPolicy = { caValidityMs: 365 * 24 * 3600_000, servingValidityMs: 30 * 24 * 3600_000 };

/** CertificateState is the webhook's certificates plus a CA being introduced (published, not yet signing). */
export interface CertificateState extends WebhookCertificates {
  next?: KeyPairPem;
}

/**
 * RotationStep says what changed: `trust` means the CAs to trust changed (publish the caBundle
 * before anything else), `serving` means the server must load a new certificate.
 */
export type RotationStep = 'none' | 'created' | 'trust' | 'serving';

/**
 * rotateCertificates renews what is due, one step at a time, so the API servers always trust
 * the certificate being served. A CA is replaced in two calls: the first adds the new CA to
 * the trusted bundle (the caller publishes it in the CRDs' caBundle), the next signs the serving
 * certificate with it; the old CA stays trusted until it expires.
 */
export async function rotateCertificates(
  state: CertificateState | undefined,
  hosts: readonly string[],
  now: Date,
  policy: RotationPolicy,
  /** Renew this one now whatever its age (a key that may have leaked); a CA still takes two steps. */
  force?: 'ca' | 'serving',
): Promise<{ state: CertificateState; step: RotationStep }> {
  if (!state || isExpired(state.ca.certPem, now)) {
    const ca = await createCertificateAuthority(now, policy.caValidityMs);
    return { state: { ca, serving: await issueServingCertificate(ca, hosts, now, policy.servingValidityMs), trusted: [ca.certPem] }, step: 'created' };
  }
  const trusted = state.trusted.filter((pem) => !isExpired(pem, now));
  if (state.next) {
    const ca = state.next;
    return { state: { ca, serving: await issueServingCertificate(ca, hosts, now, policy.servingValidityMs), trusted: unique([ca.certPem, ...trusted]) }, step: 'serving' };
  }
  if (force === 'ca' || isDue(state.ca.certPem, now)) {
    const next = await createCertificateAuthority(now, policy.caValidityMs);
    return { state: { ...state, next, trusted: unique([...trusted, next.certPem]) }, step: 'trust' };
  }
  if (force === 'serving' || isDue(state.serving.certPem, now) || !coversHosts(state.serving.certPem, hosts) || !signedBy(state.serving.certPem, state.ca.certPem)) {
    return { state: { ...state, trusted, serving: await issueServingCertificate(state.ca, hosts, now, policy.servingValidityMs) }, step: 'serving' };
  }
  return { state: { ...state, trusted }, step: trusted.length === state.trusted.length ? 'none' : 'trust' };
}

/** caBundleOf is the base64 PEM bundle a CRD's webhook clientConfig takes. */
export function caBundleOf(state: WebhookCertificates): string {
  return Buffer.from(state.trusted.map((pem) => `${pem.trim()}\n`).join('')).toString('base64');
}

function isDue(certPem: string, now: Date): boolean {
  const { notBefore, notAfter } = validityOf(certPem);
  return notAfter.getTime() - now.getTime() < (notAfter.getTime() - notBefore.getTime()) / 3;
}

function isExpired(certPem: string, now: Date): boolean {
  return validityOf(certPem).notAfter.getTime() <= now.getTime();
}

function coversHosts(certPem: string, hosts: readonly string[]): boolean {
  const cert = new X509Certificate(certPem);
  return hosts.every((host) => (isIP(host) ? cert.checkIP(host) : cert.checkHost(host)) !== undefined);
}

function signedBy(certPem: string, caPem: string): boolean {
  return new X509Certificate(certPem).verify(new X509Certificate(caPem).publicKey);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
