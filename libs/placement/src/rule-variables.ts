import { matches, requirementsOf, SelectorError, type LabelSelector, type Requirement } from './label-selector';
import { messageOf } from '@tidemark/contracts';

/** ClusterVariables are the variables a Placement rule gives a subset of its clusters. */
interface CompiledClusterVariables {
  requirements: Requirement[];
  variables: Record<string, string>;
}

/** RuleVariables are a rule's `variables` (every cluster it selects) and `clusterVariables` (clusters a selector picks, in order). */
export interface RuleVariables {
  variables: Record<string, string>;
  clusterVariables: CompiledClusterVariables[];
}

const variableName = /^[A-Za-z0-9_.-]+$/;

/**
 * compileRuleVariables checks a rule's `variables` and `clusterVariables`: names as cluster
 * variables are named, string values. Errors name the field (`where` is the rule).
 */
export function compileRuleVariables(rule: { variables?: unknown; clusterVariables?: unknown }, where: string): RuleVariables {
  const variables = checkVariables(rule.variables, `${where}.variables`);
  if (rule.clusterVariables === undefined) return { variables, clusterVariables: [] };
  if (!Array.isArray(rule.clusterVariables)) throw new SelectorError(`${where}.clusterVariables: must be a list of {clusterSelector, variables}`);
  const clusterVariables = rule.clusterVariables.map((entry: unknown, index) => {
    const field = `${where}.clusterVariables[${index}]`;
    if (!isRecord(entry)) throw new SelectorError(`${field}: must be a mapping with clusterSelector and variables`);
    try {
      return { requirements: requirementsOf((entry.clusterSelector ?? {}) as LabelSelector), variables: checkVariables(entry.variables, `${field}.variables`) };
    } catch (error) {
      if (error instanceof SelectorError && error.message.startsWith(field)) throw error;
      throw new SelectorError(`${field}.clusterSelector: ${messageOf(error)}`);
    }
  });
  return { variables, clusterVariables };
}

/** variablesFor is what a rule gives one cluster: `variables`, then every matching `clusterVariables` entry over it, in order. */
export function variablesFor(rule: RuleVariables, labels: Readonly<Record<string, string>>): Record<string, string> {
  let result = { ...rule.variables };
  for (const entry of rule.clusterVariables) {
    if (matches(entry.requirements, labels)) result = { ...result, ...entry.variables };
  }
  return result;
}

function checkVariables(value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new SelectorError(`${field}: must be a mapping of names to strings`);
  for (const [name, item] of Object.entries(value)) {
    if (!variableName.test(name)) throw new SelectorError(`${field}: "${name}" is not a variable name (letters, digits, '_', '.', '-')`);
    if (typeof item !== 'string') throw new SelectorError(`${field}.${name}: must be a string (quote numbers, as "3")`);
  }
  return value as Record<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
