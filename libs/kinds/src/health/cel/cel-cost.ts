import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];

/**
 * CelCostLimits bound what one health expression may cost, the way Kubernetes bounds CEL in
 * validation rules: an estimate from the expression alone refuses it at load, and a counter
 * stops an evaluation that passes its budget on a real object.
 */
export const celCostLimits = Object.freeze({
  /**
   * The length assumed of a list or map the expression does not write itself (a field of the
   * live object, a comprehension's result): the estimate is a worst case, as Kubernetes assumes
   * the longest list a request may hold.
   */
  assumedListLength: 1_000,
  /**
   * The highest estimated cost an expression may have: two nested comprehensions over the
   * object's lists pass (1000 x 1000 x a body of up to 100 steps), three do not. The runtime
   * budget below is what bounds an evaluation on a real object.
   */
  maxEstimatedCost: 100_000_000,
  /** Elements and keys one evaluation may visit: about 100 ms of the event loop. */
  maxVisitsPerEvaluation: 20_000,
});

/**
 * estimateCelCost is the worst-case cost of an expression, in evaluation steps: every node costs
 * one, and a comprehension (all, exists, map, filter) costs its range's length times its body.
 * Nested comprehensions multiply, so seven nested `.all` over object fields cost 1000^7.
 */
export function estimateCelCost(expr: Expr | undefined): number {
  const kind = expr?.exprKind;
  if (!kind) return 1;
  switch (kind.case) {
    case 'selectExpr':
      return 1 + estimateCelCost(kind.value.operand);
    case 'callExpr': {
      const args = kind.value.args;
      // `x in list` walks the list.
      const walk = kind.value.function === '@in' ? lengthOf(args[1]) : 0;
      return 1 + walk + estimateCelCost(kind.value.target) + args.reduce((sum, arg) => sum + estimateCelCost(arg), 0);
    }
    case 'listExpr':
      return 1 + kind.value.elements.reduce((sum, element) => sum + estimateCelCost(element), 0);
    case 'structExpr':
      return 1 + kind.value.entries.reduce((sum, entry) => sum + (entry.keyKind.case === 'mapKey' ? estimateCelCost(entry.keyKind.value) : 0) + estimateCelCost(entry.value), 0);
    case 'comprehensionExpr': {
      const loop = kind.value;
      const body = estimateCelCost(loop.loopCondition) + estimateCelCost(loop.loopStep);
      return estimateCelCost(loop.iterRange) + estimateCelCost(loop.accuInit) + lengthOf(loop.iterRange) * body + estimateCelCost(loop.result);
    }
    default:
      return 1;
  }
}

/** lengthOf is a list's length when the expression writes the list itself, else the assumed length. */
function lengthOf(expr: Expr | undefined): number {
  const kind = expr?.exprKind;
  if (kind?.case === 'listExpr') return kind.value.elements.length;
  if (kind?.case === 'structExpr') return kind.value.entries.length;
  return celCostLimits.assumedListLength;
}
