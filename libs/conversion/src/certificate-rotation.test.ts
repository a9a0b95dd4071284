import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { caBundleOf, rotateCertificates, type RotationPolicy } from './certificate-rotation';

const hour = 3600_000;
const policy: RotationPolicy = { caValidityMs: 300 * hour, servingValidityMs: 30 * hour };
const hosts = ['127.0.0.1', 'tidemark-reconciler.tidemark.svc'];
const at = (hours: number) => new Date(Date.UTC(2026, 0, 1) + hours * hour);
const issuedBy = (cert: string, ca: string) => new X509Certificate(cert).checkIssued(new X509Certificate(ca));

describe('rotateCertificates', () => {
  it('creates a CA and a serving certificate for the hosts', async () => {
    const { state, step } = await rotateCertificates(undefined, hosts, at(0), policy);
    expect(step).toBe('created');
    const serving = new X509Certificate(state.serving.certPem);
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkHost('tidemark-reconciler.tidemark.svc')).toBe('tidemark-reconciler.tidemark.svc');
    expect(issuedBy(state.serving.certPem, state.ca.certPem)).toBe(true);
    expect(Buffer.from(caBundleOf(state), 'base64').toString()).toBe(`${state.ca.certPem.trim()}\n`);
  });

  it('keeps what is not due, renews the serving certificate with a third of its life left', async () => {
    const { state } = await rotateCertificates(undefined, hosts, at(0), policy);
    expect((await rotateCertificates(state, hosts, at(19), policy)).step).toBe('none');
    const renewed = await rotateCertificates(state, hosts, at(21), policy);
    expect(renewed.step).toBe('serving');
    expect(renewed.state.serving.certPem).not.toBe(state.serving.certPem);
    expect(renewed.state.ca).toEqual(state.ca);
  });

  it('renews the serving certificate when the hosts change', async () => {
    const { state } = await rotateCertificates(undefined, hosts, at(0), policy);
    const moved = await rotateCertificates(state, ['10.0.0.7'], at(1), policy);
    expect(moved.step).toBe('serving');
    expect(new X509Certificate(moved.state.serving.certPem).checkIP('10.0.0.7')).toBe('10.0.0.7');
  });

  it('replaces a CA in two steps: trust the new one first, then serve with it; the old stays trusted until it expires', async () => {
    let { state } = await rotateCertificates(undefined, hosts, at(0), policy);
    const oldCa = state.ca.certPem;
    ({ state } = (await rotateCertificates(state, hosts, at(10), policy)));
    const trust = await rotateCertificates(state, hosts, at(201), policy);
    expect(trust.step).toBe('trust');
    expect(trust.state.trusted).toHaveLength(2);
    expect(trust.state.serving).toEqual(state.serving);
    const serve = await rotateCertificates(trust.state, hosts, at(202), policy);
    expect(serve.step).toBe('serving');
    expect(serve.state.ca.certPem).not.toBe(oldCa);
    expect(issuedBy(serve.state.serving.certPem, serve.state.ca.certPem)).toBe(true);
    expect(serve.state.trusted).toEqual([serve.state.ca.certPem, oldCa]);
    const expired = await rotateCertificates(serve.state, hosts, at(301), policy);
    expect(expired.state.trusted).toEqual([serve.state.ca.certPem]);
    expect(expired.state.ca).toEqual(serve.state.ca);
  });

  it('renews on demand, a CA still in two steps', async () => {
    const { state } = await rotateCertificates(undefined, hosts, at(0), policy);
    expect((await rotateCertificates(state, hosts, at(1), policy, 'serving')).step).toBe('serving');
    const trust = await rotateCertificates(state, hosts, at(1), policy, 'ca');
    expect(trust.step).toBe('trust');
    expect((await rotateCertificates(trust.state, hosts, at(1), policy)).step).toBe('serving');
  });
});
