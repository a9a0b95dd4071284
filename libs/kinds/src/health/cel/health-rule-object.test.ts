import { describe, expect, it } from 'vitest';
import { healthOf } from '../health-of';
import { condition, live } from '../../testing/health-test-objects';
import { compileHealthRules } from './cel-health-rule';
import { compileHealthRuleObjects } from './health-rule-object';
import { withSourceHealthRules } from './run-health-rules';
import { withHealthRules } from './with-health-rules';

const healthRule = (name: string, spec: Record<string, unknown>) => ({
  object: { apiVersion: 'tidemark.dev/v1alpha1', kind: 'HealthRule', metadata: { name, namespace: 'ops' }, spec },
  path: `rules/${name}.yaml`,
});
const databaseRule = { apiVersion: 'example.com/v1', kind: 'Database', failed: "has(status.phase) && status.phase == 'Failed'", current: "has(status.phase) && status.phase == 'Running'" };
const database = (phase: string) => live('example.com/v1', 'Database', { status: { phase } });

describe('HealthRule objects', () => {
  it('compile into rules; a broken one is refused on its own, naming the file, the object and the field', () => {
    const compiled = compileHealthRuleObjects([
      healthRule('db', databaseRule),
      healthRule('certs', { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', current: 'status.conditions.exists(e, e.type == ' }),
      healthRule('nokind', { apiVersion: 'example.com/v1', current: 'true' }),
    ]);
    expect(compiled.rules.map((rule) => `${rule.group}/${rule.kind} ${rule.declaredIn}`)).toEqual(['example.com/Database rules/db.yaml: HealthRule ops/db spec']);
    expect(compiled.refused).toEqual([
      { group: 'cert-manager.io', kind: 'Certificate', message: expect.stringMatching(/^rules\/certs\.yaml: HealthRule ops\/certs spec\.current: "status\.conditions\.exists\(e, e\.type == " does not parse: at 1:\d+/) },
      { message: 'rules/nokind.yaml: HealthRule ops/nokind spec.kind: "undefined" is not a kind: write it as the API does, e.g. Certificate' },
    ]);
  });

  it('refuses a second rule for a kind, naming the first', () => {
    const compiled = compileHealthRuleObjects([healthRule('db', databaseRule), healthRule('db-again', databaseRule)]);
    expect(compiled.rules).toHaveLength(1);
    expect(compiled.refused[0]?.message).toBe('rules/db-again.yaml: HealthRule ops/db-again spec: Database already has a health rule in this source (rules/db.yaml: HealthRule ops/db spec); keep one');
  });

  it('judge their kind over the generic rule, and a refused kind says what judged it instead', () => {
    const run = withSourceHealthRules(withHealthRules([]), compileHealthRuleObjects([
      healthRule('db', databaseRule),
      healthRule('certs', { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', current: 'nonsense(' }),
      healthRule('deployments', { apiVersion: 'apps/v1', kind: 'Deployment', current: 'nonsense(' }),
    ]));
    expect(healthOf(database('Failed'), run.rules).status).toBe('Failed');
    expect(healthOf(database('Failed'), withHealthRules([])).status).toBe('Ready');
    const certificate = live('cert-manager.io/v1', 'Certificate', { status: { conditions: [condition('Ready', 'True')] } });
    expect(healthOf(certificate, run.rules).status).toBe('Ready');
    expect(run.noteFor(certificate)).toMatch(/^Its HealthRule was refused \(rules\/certs\.yaml: HealthRule ops\/certs spec\.current: .*\); it is judged by the generic rule \(kstatus\) instead\.$/);
    expect(run.noteFor(live('apps/v1', 'Deployment'))).toMatch(/; it is judged by its built-in rule instead\.$/);
    expect(run.noteFor(database('Running'))).toBeUndefined();
  });

  it("lose to the operator's config for the same kind, and say so", () => {
    const configured = withHealthRules(compileHealthRules([{ ...databaseRule, current: "has(status.phase) && status.phase == 'Up'" }], 'objectHealth.rules'));
    const run = withSourceHealthRules(configured, compileHealthRuleObjects([healthRule('db', databaseRule)]));
    expect(healthOf(database('Up'), run.rules).status).toBe('Ready');
    expect(healthOf(database('Running'), run.rules).status).toBe('Progressing');
    expect(run.noteFor(database('Up'))).toBe('rules/db.yaml: HealthRule ops/db spec is not used: objectHealth.rules[0] judges Database, and the operator\'s config wins.');
  });
});
