import { describe, expect, it } from 'vitest';
import { checkSecretOptIn, gitCredentialsSecretType, type SecretOptIn } from './secret-opt-in';

const secret = { namespace: 'team-a', name: 'git-auth' };
const source = { namespace: 'team-a', name: 'app' };
const usedBy = 'spec.secretRef of Source team-a/app';
const plain: SecretOptIn = { labels: {}, annotations: {}, type: 'Opaque' };
const refusal = (optIn: SecretOptIn, from = source) => {
  try {
    checkSecretOptIn(secret, optIn, from, usedBy);
    return undefined;
  } catch (error) {
    return error as { code: string; message: string };
  }
};

describe('checkSecretOptIn', () => {
  it('refuses a Secret that has not opted in, naming the Secret, the Source and what to add', () => {
    const refused = refusal(plain);
    expect(refused?.code).toBe('SecretNotAllowed');
    expect(refused?.message).toBe('Secret not allowed: team-a/git-auth (spec.secretRef of Source team-a/app) has not opted in for Source team-a/app, so its credentials are not sent. Add to the Secret the label tidemark.dev/source: "app", or the annotation tidemark.dev/sources: "team-a/app" (a comma-separated list), or make it of type tidemark.dev/git-credentials. Nothing is fetched, and nothing pruned, until then.');
  });

  it('accepts the label naming the Source, the annotation listing it, or the Tidemark type', () => {
    expect(refusal({ ...plain, labels: { 'tidemark.dev/source': 'app' } })).toBeUndefined();
    expect(refusal({ ...plain, annotations: { 'tidemark.dev/sources': 'other, app' } })).toBeUndefined();
    expect(refusal({ ...plain, annotations: { 'tidemark.dev/sources': 'team-a/app' } })).toBeUndefined();
    expect(refusal({ ...plain, type: gitCredentialsSecretType })).toBeUndefined();
  });

  it('holds another Source to its own opt-in: a label for app is not one for ci, nor for app of another namespace', () => {
    const forApp = { ...plain, labels: { 'tidemark.dev/source': 'app' }, annotations: { 'tidemark.dev/sources': 'app' } };
    expect(refusal(forApp, { namespace: 'team-a', name: 'ci' })?.code).toBe('SecretNotAllowed');
    const elsewhere = refusal(forApp, { namespace: 'team-b', name: 'app' });
    expect(elsewhere?.message).toContain('Add to the Secret the annotation tidemark.dev/sources: "team-b/app"');
    expect(refusal({ ...plain, annotations: { 'tidemark.dev/sources': 'team-b/app' } }, { namespace: 'team-b', name: 'app' })).toBeUndefined();
  });
});
