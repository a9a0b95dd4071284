import { describe, expect, it } from 'vitest';
import { healthOf } from '../health-of';
import { condition, live } from '../../testing/health-test-objects';
import { compileHealthRule, compileHealthRules, HealthRuleError, type HealthExpressions } from './cel-health-rule';
import { compileCelProgram } from './cel-program';
import { withHealthRules } from './with-health-rules';
import { parse } from '@bufbuild/cel';
import { healthRuleApiVersion, healthRuleKind } from '@tidemark/contracts';
import { estimateCelCost } from './cel-cost';
import { compileHealthRuleObjects } from './health-rule-object';

// The expressions of Flux's CEL cheatsheet for cert-manager, a database operator and Argo Rollouts, written with has() guards.
const certificate: HealthExpressions = {
  apiVersion: 'cert-manager.io/v1', kind: 'Certificate',
  inProgress: "has(status.conditions) && status.conditions.exists(e, e.type == 'Issuing' && e.status == 'True')",
  failed: "has(status.conditions) && status.conditions.exists(e, e.type == 'Ready' && e.status == 'False' && e.reason == 'Failed')",
  current: "has(status.conditions) && status.conditions.exists(e, e.type == 'Ready' && e.status == 'True')",
};
const database: HealthExpressions = {
  apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster',
  failed: "has(status.phase) && status.phase.startsWith('Failed')",
  current: "has(status.phase) && status.phase == 'Cluster in healthy state' && status.readyInstances == spec.instances",
};
const rollout: HealthExpressions = {
  apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout',
  inProgress: "has(status.phase) && status.phase in ['Progressing', 'Paused']",
  failed: "has(status.phase) && status.phase == 'Degraded'",
  current: "has(status.phase) && status.phase == 'Healthy'",
};
const rules = withHealthRules(compileHealthRules([certificate, database, rollout], 'tidemark.yaml: objectHealth.rules'));

describe('CEL health rules', () => {
  it('judge a cert-manager Certificate: issuing is in progress, Ready=True is ready, a failed issue is failed', () => {
    const cert = (conditions: unknown[]) => live('cert-manager.io/v1', 'Certificate', { generation: 2, status: { observedGeneration: 2, conditions } });
    expect(healthOf(cert([condition('Ready', 'True')]), rules).status).toBe('Ready');
    expect(healthOf(cert([condition('Issuing', 'True'), condition('Ready', 'True')]), rules).status).toBe('Progressing');
    expect(healthOf(cert([condition('Ready', 'False', 'Failed', 'ACME said no')]), rules)).toMatchObject({ status: 'Failed', message: expect.stringContaining('Certificate shop/web is failed by its health rule (failed:') });
    expect(healthOf(cert([]), rules)).toEqual({ status: 'Progressing', message: expect.stringContaining('its health rule\'s current expression does not hold') });
  });

  it('judge a database cluster by phase and instance count (whole numbers are CEL ints)', () => {
    const cluster = (status: unknown) => live('postgresql.cnpg.io/v1', 'Cluster', { spec: { instances: 3 }, status });
    expect(healthOf(cluster({ phase: 'Cluster in healthy state', readyInstances: 3 }), rules).status).toBe('Ready');
    expect(healthOf(cluster({ phase: 'Cluster in healthy state', readyInstances: 2 }), rules).status).toBe('Progressing');
    expect(healthOf(cluster({ phase: 'Failed to create pod' }), rules).status).toBe('Failed');
    expect(healthOf(cluster(undefined), rules).status).toBe('Progressing');
  });

  it('judge an Argo Rollout, and match on the group whatever the version', () => {
    const rolloutOf = (phase: string) => live('argoproj.io/v1beta1', 'Rollout', { status: { phase } });
    expect(['Healthy', 'Paused', 'Degraded', 'Unknown'].map((phase) => healthOf(rolloutOf(phase), rules).status)).toEqual(['Ready', 'Progressing', 'Failed', 'Progressing']);
  });

  it('say in progress while the controller has not observed the generation, whatever the expressions say', () => {
    const stale = live('argoproj.io/v1alpha1', 'Rollout', { generation: 3, status: { observedGeneration: 2, phase: 'Healthy' } });
    expect(healthOf(stale, rules)).toMatchObject({ status: 'Progressing', message: expect.stringContaining('has not observed generation 3') });
  });

  it('leave an object in progress, saying which expression failed and why, when a field it reads is missing', () => {
    const unguarded = withHealthRules([compileHealthRule({ apiVersion: 'example.com/v1', kind: 'Database', current: "status.phase == 'Ready'" }, 'x')]);
    expect(healthOf(live('example.com/v1', 'Database', { status: {} }), unguarded)).toEqual({
      status: 'Progressing',
      message: expect.stringMatching(/^Database shop\/web: its health rule's current expression cannot be evaluated yet \(.*phase.*\); guard optional fields with has\(\)/),
    });
    expect(healthOf(live('example.com/v1', 'Database', { status: { phase: 'Ready' } }), unguarded).status).toBe('Ready');
  });

  it('win over the built-in rule of the same kind, and leave the others to the built-in rules', () => {
    const custom = withHealthRules(compileHealthRules([{ apiVersion: 'apps/v1', kind: 'Deployment', current: 'true' }], 'x'));
    expect(healthOf(live('apps/v1', 'Deployment', { spec: { replicas: 3 }, status: {} }), custom).status).toBe('Ready');
    expect(healthOf(live('batch/v1', 'Job', { status: { conditions: [condition('Failed', 'True')] } }), custom).status).toBe('Failed');
  });

  it.each([
    [{ current: "status.phase == 'Ready" }, /^tidemark\.yaml: objectHealth\.rules\[0\]\.current: "status\.phase == 'Ready" does not parse: at 1:/],
    [{ current: 'true', failed: "self.status.phase == 'Failed'" }, /\.failed: .* uses "self": an expression sees only apiVersion, kind, metadata, spec, status$/],
    [{ current: 'status.conditions.exists(c, c.type == condition)' }, /\.current: .* uses "condition"/],
    [{ current: '' }, /\.current: is required: a CEL expression that holds when the Database is Ready$/],
    [{ apiVersion: 'example.com', current: 'true' }, /\.apiVersion: "example\.com" is not an apiVersion/],
    [{ kind: 'database', current: 'true' }, /\.kind: "database" is not a kind/],
  ])('refuse a broken declaration at load, naming the file and field: %j', (change, message) => {
    const declaration = { apiVersion: 'example.com/v1', kind: 'Database', ...change } as HealthExpressions;
    expect(() => compileHealthRules([declaration], 'tidemark.yaml: objectHealth.rules')).toThrow(HealthRuleError);
    expect(() => compileHealthRules([declaration], 'tidemark.yaml: objectHealth.rules')).toThrow(message);
  });

  it('refuse two rules for one kind', () => {
    expect(() => compileHealthRules([rollout, { ...rollout, apiVersion: 'argoproj.io/v1' }], 'f: rules')).toThrow('f: rules[1]: Rollout (argoproj.io) already has a health rule at f: rules[0]; keep one');
  });

  it('compile each expression once, and refuse a result that is not a bool when evaluated', () => {
    expect(compileCelProgram(certificate.current)).toBe(compileCelProgram(certificate.current));
    const notBool = withHealthRules([compileHealthRule({ apiVersion: 'example.com/v1', kind: 'Database', current: 'status.replicas' }, 'x')]);
    expect(healthOf(live('example.com/v1', 'Database', { status: { replicas: 2 } }), notBool).message).toContain('gives an int, not a bool');
  });
});

describe('CEL health rule cost', () => {
  const sevenNested = 'spec.a.all(a, spec.a.all(b, spec.a.all(c, spec.a.all(d, spec.a.all(e, spec.a.all(f, spec.a.all(g, a + b + c + d + e + f + g >= 0)))))))';

  // Refused by the static estimate (the message), before any evaluation; how fast is bench's to measure.
  it('refuses seven nested .all at load by its estimated cost, naming the HealthRule and the field', () => {
    const { rules, refused } = compileHealthRuleObjects([{
      path: 'health/costly.yaml',
      object: { apiVersion: healthRuleApiVersion, kind: healthRuleKind, metadata: { name: 'costly', namespace: 'team-a' }, spec: { apiVersion: 'example.com/v1', kind: 'Widget', current: sevenNested } },
    }]);
    expect(rules).toEqual([]);
    expect(refused).toEqual([{ group: 'example.com', kind: 'Widget', message: expect.stringMatching(/^health\/costly\.yaml: HealthRule team-a\/costly spec\.current: .* costs an estimated \d\.\de\+22 steps, more than the budget of 100000000/) }]);
  });

  it('keeps the usual shapes: one comprehension, two nested, `in` a literal list', () => {
    expect(() => compileCelProgram("status.containerStatuses.all(s, s.ready && has(s.conditions) && s.conditions.exists(c, c.type == 'Ready'))")).not.toThrow();
    expect(estimateCelCost(parse("status.phase in ['Progressing', 'Paused']").expr)).toBeLessThan(20);
  });

  it('stops an evaluation at its budget: the object is Failed at once, the event loop goes on', async () => {
    // Two nested comprehensions pass the estimate; an object with 1,000-item lists makes them a million steps.
    const rule = compileHealthRule({ apiVersion: 'example.com/v1', kind: 'Widget', current: 'spec.a.all(x, spec.a.all(y, x + y >= 0))' }, 'rules/widget.yaml: HealthRule ops/widget spec');
    const widget = live('example.com/v1', 'Widget', { spec: { a: Array.from({ length: 1_000 }, (_, index) => index) } });
    let ticks = 0;
    const ticker = setInterval(() => { ticks += 1; }, 5);
    const health = rule.evaluate(widget);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearInterval(ticker);
    expect(health).toEqual({ status: 'Failed', message: expect.stringContaining("its health rule's current expression (rules/widget.yaml: HealthRule ops/widget spec.current) visited more than 20000 list items and map keys") });
    // Stopped by the budget (the message), not by time: how long a stopped evaluation takes is bench's to measure.
    expect(ticks).toBeGreaterThan(0);
    // A small object is judged as before.
    expect(rule.evaluate(live('example.com/v1', 'Widget', { spec: { a: [1, 2, 3] } })).status).toBe('Ready');
  });

  it('counts keys of maps too: a comprehension over a big map stops at the budget', () => {
    const rule = compileHealthRule({ apiVersion: 'example.com/v1', kind: 'Widget', current: 'spec.m.all(x, spec.m.all(y, x != y || x == y))' }, 'here');
    const widget = live('example.com/v1', 'Widget', { spec: { m: Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`k${index}`, index])) } });
    expect(rule.evaluate(widget).status).toBe('Failed');
  });
});
