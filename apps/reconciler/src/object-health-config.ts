import { Type, type Static } from '@sinclair/typebox';
import { compileHealthRules, HealthRuleError, type HealthExpressions } from '@tidemark/kinds';

/** ObjectHealthInput is the `objectHealth` section of tidemark.yaml: how long objects may take to be Ready, and CEL health rules. */
export const ObjectHealthInput = Type.Object({
  /** How long an object may take to become Ready before it is HealthCheckFailed. @defaultValue 600000 */
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1_000, maximum: 86_400_000 })),
  /** Health rules in CEL per kind, with the semantics of Flux's healthCheckExprs. */
  rules: Type.Optional(Type.Array(Type.Object({
    apiVersion: Type.String({ minLength: 1 }),
    kind: Type.String({ minLength: 1 }),
    current: Type.String(),
    inProgress: Type.Optional(Type.String()),
    failed: Type.Optional(Type.String()),
  }, { additionalProperties: false }))),
}, { additionalProperties: false });

/** ObjectHealthConfig: the health timeout and the declared rules, each compiled once at load (a broken one is refused then). */
export interface ObjectHealthConfig {
  readonly timeoutMs: number;
  readonly rules: readonly HealthExpressions[];
}

/**
 * objectHealthConfig validates the section: every rule is compiled here, so a broken expression is
 * a configuration error naming the file and field at start-up, never a failure at reconcile. The
 * compiled programs are cached, so the reconciler's own compile costs nothing.
 */
export function objectHealthConfig(input: Static<typeof ObjectHealthInput> | undefined, where: (field: string) => string, fail: (message: string) => Error): ObjectHealthConfig {
  const rules = input?.rules ?? [];
  try {
    compileHealthRules(rules, where('objectHealth.rules'));
  } catch (error) {
    if (error instanceof HealthRuleError) throw fail(error.message);
    throw error;
  }
  return { timeoutMs: input?.timeoutMs ?? 600_000, rules: rules.map((rule) => ({ ...rule })) };
}
