import { CelScalar, celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import type { KubernetesManifest } from '../../kind-plugin';
import { celCostLimits, estimateCelCost } from './cel-cost';
import { CelVisitMeter, CelBudgetExceeded } from './cel-visit-meter';

/** The variables a health expression sees: the live object's top-level fields, as in Flux's healthCheckExprs. */
export const healthVariables = ['apiVersion', 'kind', 'metadata', 'spec', 'status'] as const;

type Expr = ReturnType<typeof parse>['expr'];

const environment = celEnv({ variables: Object.fromEntries(healthVariables.map((name) => [name, CelScalar.DYN])) });

/**
 * CelProgram is one compiled expression: evaluate says true or false about a live object, or
 * throws saying why it could not (CelBudgetExceeded when it visited more elements than its budget).
 */
export interface CelProgram {
  readonly expression: string;
  evaluate(live: KubernetesManifest): boolean;
}

// Compiled once per expression text: every object of a kind, and every rule that repeats an expression, shares it.
const compiled = new Map<string, CelProgram>();

/**
 * compileCelProgram parses and plans a health expression, or throws an Error saying what is wrong
 * with it (a syntax error with its column, or a name other than the object's top-level fields), so
 * a broken expression fails at load, not at reconcile.
 */
export function compileCelProgram(expression: string): CelProgram {
  const known = compiled.get(expression);
  if (known) return known;
  let parsed;
  try {
    parsed = parse(expression);
  } catch (error) {
    throw new Error(`does not parse: ${(error as Error).message.replace(/^<input>:/, 'at ')}`);
  }
  const unknown = unknownNames(parsed.expr, new Set());
  if (unknown.length > 0) throw new Error(`uses ${unknown.map((name) => `"${name}"`).join(', ')}: an expression sees only ${healthVariables.join(', ')}`);
  const cost = estimateCelCost(parsed.expr);
  if (cost > celCostLimits.maxEstimatedCost) {
    throw new Error(`costs an estimated ${cost.toPrecision(2)} steps, more than the budget of ${celCostLimits.maxEstimatedCost} (each list of the object counted as ${celCostLimits.assumedListLength} items; nested all/exists/map/filter multiply): nest fewer comprehensions`);
  }
  const run = plan(environment, parsed);
  const program: CelProgram = {
    expression,
    evaluate(live) {
      const meter = new CelVisitMeter(celCostLimits.maxVisitsPerEvaluation);
      const bindings = Object.fromEntries(healthVariables.map((name) => [name, toCel(live[name] ?? null, meter)])) as Record<string, CelInput>;
      const result = run(bindings);
      // The meter's throw may be absorbed by `||` or a function; it stays tripped.
      if (meter.exceeded) throw new CelBudgetExceeded(meter.budget);
      if (isCelError(result)) throw new Error(result.message);
      if (typeof result !== 'boolean') throw new Error(`gives ${typeof result === 'bigint' ? 'an int' : typeof result}, not a bool`);
      return result;
    },
  };
  compiled.set(expression, program);
  return program;
}

/**
 * toCel turns parsed JSON into CEL values: whole numbers become CEL ints, as Kubernetes' own CEL
 * sees them, so `status.replicas == 1` and `metadata.generation == status.observedGeneration` hold.
 * Lists and maps count every element and key a comprehension visits on the meter.
 */
function toCel(value: unknown, meter: CelVisitMeter): CelInput {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return meter.list(value.map((inner) => toCel(inner, meter)));
  if (value && typeof value === 'object') return meter.map(Object.entries(value).map(([key, inner]) => [key, toCel(inner, meter)]));
  return value as CelInput;
}

/** unknownNames lists the free identifiers of an expression that are not the object's fields (comprehension variables are bound). */
function unknownNames(expr: Expr | undefined, bound: ReadonlySet<string>): string[] {
  const kind = expr?.exprKind;
  if (!kind) return [];
  switch (kind.case) {
    case 'identExpr': {
      const name = kind.value.name;
      return bound.has(name) || (healthVariables as readonly string[]).includes(name) ? [] : [name];
    }
    case 'selectExpr':
      return unknownNames(kind.value.operand, bound);
    case 'callExpr':
      return [...unknownNames(kind.value.target, bound), ...kind.value.args.flatMap((arg) => unknownNames(arg, bound))];
    case 'listExpr':
      return kind.value.elements.flatMap((element) => unknownNames(element, bound));
    case 'structExpr':
      return kind.value.entries.flatMap((entry) => [...(entry.keyKind.case === 'mapKey' ? unknownNames(entry.keyKind.value, bound) : []), ...unknownNames(entry.value, bound)]);
    case 'comprehensionExpr': {
      const loop = kind.value;
      const inner = new Set([...bound, loop.iterVar, loop.iterVar2, loop.accuVar].filter(Boolean));
      return [...unknownNames(loop.iterRange, bound), ...unknownNames(loop.accuInit, bound), ...[loop.loopCondition, loop.loopStep, loop.result].flatMap((part) => unknownNames(part, inner))];
    }
    default:
      return [];
  }
}
