import { describe, expect, it } from 'vitest';
import { breakGlassOf, isPrevented, mergeTenantUsers, preventedKindsOf, preventionPolicy, tenantUsersOf, trustedUsersOf, withPrevention } from './prevention';
import { driftPolicyOf } from './policy';

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };

describe('drift prevention', () => {
  it('labels a prevented object for the binding and names its Git file', () => {
    const object = withPrevention(deployment, 'apps: shop/web.yaml');
    expect(isPrevented(object)).toBe(true);
    expect(object.metadata.annotations?.['tidemark.dev/git-file']).toBe('apps: shop/web.yaml');
    expect(isPrevented(deployment)).toBe(false);
  });

  it('takes prevent from the annotation, the kind or the source, the annotation first', () => {
    const annotated = (value: string) => ({ ...deployment, metadata: { ...deployment.metadata, annotations: { 'tidemark.dev/drift': value } } });
    expect(driftPolicyOf(annotated('prevent'))).toBe('prevent');
    expect(driftPolicyOf(deployment, {}, 'prevent')).toBe('prevent');
    expect(driftPolicyOf(annotated('heal'), {}, 'prevent')).toBe('heal');
    expect(driftPolicyOf(deployment, { Deployment: 'report' }, 'prevent')).toBe('report');
    expect(driftPolicyOf(annotated('PREVENT'))).toBe('heal');
  });

  it('builds a policy for updates and deletes of labelled objects that trusts exactly the listed identities', () => {
    const [policy, binding] = preventionPolicy({ trustedUsers: ['tidemark', 'system:serviceaccount:team-a:deployer'], trustedUserPrefixes: ['system:serviceaccount:kube-system:'], breakGlassGroups: ['system:masters'], preventedKinds: ['apps/Deployment', '/ConfigMap'] });
    const spec = policy.spec as { matchConstraints: { resourceRules: { operations: string[]; resources: string[] }[] }; variables: { name: string; expression: string }[]; validations: { expression: string; messageExpression: string }[] };
    expect(spec.matchConstraints.resourceRules[0]).toMatchObject({ operations: ['UPDATE', 'DELETE'], resources: ['*'] });
    const trusted = spec.variables.find((variable) => variable.name === 'trusted')?.expression;
    expect(trusted).toBe("request.userInfo.username in ['system:serviceaccount:team-a:deployer', 'tidemark'] || ['system:serviceaccount:kube-system:'].exists(prefix, request.userInfo.username.startsWith(prefix))"
      + ' || (request.userInfo.username in variables.tenants && variables.targetNamespace in variables.tenants[request.userInfo.username])');
    expect(binding.spec).toEqual({ policyName: 'tidemark-drift-prevention', validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { 'tidemark.dev/drift-prevent': 'true' } } } });
    expect(trustedUsersOf(policy)).toEqual(['system:serviceaccount:team-a:deployer', 'tidemark']);
    expect(preventedKindsOf(policy)).toEqual(['/ConfigMap', 'apps/Deployment']);
  });

  it('trusts a tenant identity only in its namespaces, as a CEL map the policy carries and can be read back from', () => {
    const [policy] = preventionPolicy({ trustedUsers: ['tidemark'], trustedUserPrefixes: [], breakGlassGroups: [], tenantUsers: { 'system:serviceaccount:team-b:deployer': ['team-b', ''], 'system:serviceaccount:team-a:deployer': ['team-a'] } });
    const variables = (policy.spec as { variables: { name: string; expression: string }[] }).variables;
    const names = variables.map((variable) => variable.name);
    expect(variables.find((variable) => variable.name === 'tenants')?.expression).toBe("{'system:serviceaccount:team-a:deployer': ['team-a'], 'system:serviceaccount:team-b:deployer': ['', 'team-b']}");
    expect(variables.find((variable) => variable.name === 'targetNamespace')?.expression).toBe("has(variables.target.metadata.namespace) ? variables.target.metadata.namespace : ''");
    // A CEL variable may only use those before it.
    expect(names.indexOf('target')).toBeLessThan(names.indexOf('targetNamespace'));
    expect(names.indexOf('tenants')).toBeLessThan(names.indexOf('trusted'));
    expect(names.indexOf('targetNamespace')).toBeLessThan(names.indexOf('trusted'));
    expect(trustedUsersOf(policy)).toEqual(['tidemark']);
    expect({ ...tenantUsersOf(policy) }).toEqual({ 'system:serviceaccount:team-a:deployer': ['team-a'], 'system:serviceaccount:team-b:deployer': ['', 'team-b'] });
  });

  it('reads tenants from a live policy as hostile, and only adds to them', () => {
    const annotated = (value: string) => ({ metadata: { name: 'p', annotations: { 'tidemark.dev/tenant-users': value } } });
    expect({ ...tenantUsersOf(annotated('["a"]')) }).toEqual({});
    expect({ ...tenantUsersOf(annotated('not json')) }).toEqual({});
    expect({ ...tenantUsersOf(annotated(JSON.stringify({ 'ok': ['team-a', 'Bad_NS', 3, ''], "x' || true": ['a'], 'empty': [], 'list': 'team-a' }))) }).toEqual({ ok: ['', 'team-a'] });
    const polluted = tenantUsersOf(annotated('{"__proto__": ["team-a"]}'));
    expect(({} as Record<string, unknown>)['team-a']).toBeUndefined();
    expect(Object.getPrototypeOf(polluted)).toBeNull();
    expect({ ...mergeTenantUsers({ a: ['x'] }, { a: ['y', 'x'], b: [''] }) }).toEqual({ a: ['x', 'y'], b: [''] });
  });

  it('never puts a name that could break out of a CEL string into the policy', () => {
    const [policy] = preventionPolicy({ trustedUsers: ["x' || true || '"], trustedUserPrefixes: ["') || true || ('"], breakGlassGroups: ['a\nb'], preventedKinds: ['apps/Deployment; drop'], tenantUsers: { "y' || true || '": ['a'], ok: ["a' || true || '"] } });
    const text = JSON.stringify(policy.spec);
    expect(text).not.toContain('|| true ||');
    expect(trustedUsersOf(policy)).toEqual([]);
    expect(preventedKindsOf(policy)).toEqual([]);
  });

  it('reads a live policy as hostile: only plain lists of names count', () => {
    const annotated = (users: string) => ({ metadata: { name: 'p', annotations: { 'tidemark.dev/trusted-users': users } } });
    expect(trustedUsersOf(annotated('not json'))).toEqual([]);
    expect(trustedUsersOf(annotated('{"a":1}'))).toEqual([]);
    expect(trustedUsersOf(annotated('["ok", 3, "bad name", "' + 'a'.repeat(300) + '"]'))).toEqual(['ok']);
    expect(trustedUsersOf(annotated(`[${'"a",'.repeat(30_000)}"a"]`))).toEqual([]);
    expect(trustedUsersOf(undefined)).toEqual([]);
  });

  it('bounds and scrubs the break-glass reason before it reaches a status', () => {
    const object = (reason: string) => ({ metadata: { name: 'web', annotations: { 'tidemark.dev/break-glass': reason } } });
    expect(breakGlassOf(object('incident 42'))).toBe('incident 42');
    expect(breakGlassOf(object(''))).toBe('');
    expect(breakGlassOf(object('x'.repeat(1000)))?.length).toBe(200);
    expect(breakGlassOf(object('see https://user:hunter2@example.com/x\u0007'))).not.toContain('hunter2');
    expect(breakGlassOf({ metadata: { name: 'web' } })).toBeUndefined();
  });
});
