import { groupOf } from '@tidemark/contracts';
import type { Health, KubernetesManifest } from '../../kind-plugin';
import type { HealthRule } from '../health-rule';
import type { HealthRuleSpecOf } from './health-rule-crd';
import { describe, generationLag } from '../status-fields';
import { compileCelProgram, type CelProgram } from './cel-program';
import { CelBudgetExceeded } from './cel-visit-meter';

/**
 * HealthExpressions declares the health of one kind in CEL, as Flux's healthCheckExprs: `current`
 * (required) says it is Ready, `failed` that it failed, `inProgress` that it is still getting there.
 * Each sees the live object's top-level fields (metadata, spec, status, …). The HealthRule CRD is generated from the same schema.
 */
export type HealthExpressions = HealthRuleSpecOf;

/** HealthRuleError is a health rule that cannot be compiled; its message names where it was declared and the field. */
export class HealthRuleError extends Error {
  readonly code = 'HealthRuleInvalid';
  constructor(message: string) {
    super(message);
    this.name = 'HealthRuleError';
  }
}

const order = ['inProgress', 'failed', 'current'] as const;
type Verdict = (typeof order)[number];
const statusOf: Record<Verdict, Health['status']> = { inProgress: 'Progressing', failed: 'Failed', current: 'Ready' };

/**
 * compileHealthRule compiles one declaration into a HealthRule, or throws a HealthRuleError naming
 * `where` (the file and field) and the expression that is wrong. Evaluation follows Flux: an
 * object whose controller has not observed its generation is in progress; then inProgress, failed
 * and current are tried in that order, and the first that holds decides; none holding is in
 * progress. An expression that cannot be evaluated (a field the object does not have yet) leaves
 * the object in progress, saying so, so a health timeout ends the wait.
 */
export function compileHealthRule(declaration: HealthExpressions, where: string): HealthRule {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(declaration.kind ?? '')) throw new HealthRuleError(`${where}.kind: "${String(declaration.kind)}" is not a kind: write it as the API does, e.g. Certificate`);
  if (typeof declaration.apiVersion !== 'string' || !/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(declaration.apiVersion)) {
    throw new HealthRuleError(`${where}.apiVersion: "${String(declaration.apiVersion)}" is not an apiVersion: write group/version, e.g. cert-manager.io/v1`);
  }
  if (typeof declaration.current !== 'string' || declaration.current.trim() === '') throw new HealthRuleError(`${where}.current: is required: a CEL expression that holds when the ${declaration.kind} is Ready`);
  const programs: Partial<Record<Verdict, CelProgram>> = {};
  for (const field of order) {
    const expression = declaration[field];
    if (expression === undefined) continue;
    try {
      programs[field] = compileCelProgram(expression);
    } catch (error) {
      throw new HealthRuleError(`${where}.${field}: ${JSON.stringify(expression.slice(0, 200))} ${(error as Error).message}`);
    }
  }
  return { group: groupOf(declaration.apiVersion), kind: declaration.kind, declaredIn: where, evaluate: (live) => evaluateRule(programs, live, where) };
}

function evaluateRule(programs: Partial<Record<Verdict, CelProgram>>, live: KubernetesManifest, where: string): Health {
  const lag = generationLag(live);
  if (lag) return lag;
  const name = describe(live);
  for (const field of order) {
    const program = programs[field];
    if (!program) continue;
    let holds: boolean;
    try {
      holds = program.evaluate(live);
    } catch (error) {
      // A rule that runs past its budget would cost the same on every look: a failure the rule's author must fix.
      if (error instanceof CelBudgetExceeded) return { status: 'Failed', message: `${name}: its health rule's ${field} expression (${where}.${field}) ${error.message}. Nest fewer comprehensions over the object's lists.` };
      return { status: 'Progressing', message: `${name}: its health rule's ${field} expression cannot be evaluated yet (${(error as Error).message}); guard optional fields with has(), e.g. has(status.phase) && status.phase == 'Ready'.` };
    }
    if (holds) return { status: statusOf[field], message: `${name} is ${field === 'current' ? 'ready' : field === 'failed' ? 'failed' : 'in progress'} by its health rule (${field}: ${program.expression.slice(0, 200)}).` };
  }
  return { status: 'Progressing', message: `${name} is not ready yet: its health rule's current expression does not hold (${programs.current?.expression.slice(0, 200) ?? ''}).` };
}

/** compileHealthRules compiles a list of declarations (`where[index]`), refusing two rules for the same kind. */
export function compileHealthRules(declarations: readonly HealthExpressions[], where: string): HealthRule[] {
  const rules: HealthRule[] = [];
  declarations.forEach((declaration, index) => {
    const rule = compileHealthRule(declaration, `${where}[${index}]`);
    const twin = rules.findIndex((known) => known.group === rule.group && known.kind === rule.kind);
    if (twin >= 0) throw new HealthRuleError(`${where}[${index}]: ${rule.kind}${rule.group ? ` (${rule.group})` : ''} already has a health rule at ${where}[${twin}]; keep one`);
    rules.push(rule);
  });
  return rules;
}
