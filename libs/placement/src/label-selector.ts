/** Requirement is one term of a label selector. */
export type Requirement =
  | { key: string; operator: 'In' | 'NotIn'; values: string[] }
  | { key: string; operator: 'Exists' | 'DoesNotExist' };

/** LabelSelector is the Kubernetes shape: matchLabels and matchExpressions, all ANDed. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** SelectorError is a selector that cannot be read; its message says where and why. */
export class SelectorError extends Error {
  readonly code = 'SelectorInvalid';
}

/** requirementsOf turns a structured selector into requirements; an empty selector selects everything. */
export function requirementsOf(selector: LabelSelector): Requirement[] {
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  for (const expression of selector.matchExpressions ?? []) {
    const { key, operator, values = [] } = expression;
    if (operator === 'In' || operator === 'NotIn') requirements.push({ key, operator, values });
    else if (operator === 'Exists' || operator === 'DoesNotExist') requirements.push({ key, operator });
    else throw new SelectorError(`matchExpressions: operator "${operator}" for key "${key}" is not one of In, NotIn, Exists, DoesNotExist`);
  }
  return requirements;
}

/**
 * parseSelector reads the string form used in annotations and kubectl -l:
 * `env=prod,tier!=db,region in (eu,us),!legacy,gpu`.
 */
export function parseSelector(text: string): Requirement[] {
  const requirements: Requirement[] = [];
  for (const term of splitTerms(text)) {
    const set = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (set) {
      requirements.push({ key: set[1]!, operator: set[2] === 'in' ? 'In' : 'NotIn', values: set[3]!.split(',').map((value) => value.trim()).filter(Boolean) });
      continue;
    }
    const equality = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(term);
    if (equality) {
      requirements.push({ key: equality[1]!, operator: equality[2] === '!=' ? 'NotIn' : 'In', values: [equality[3]!] });
      continue;
    }
    const existence = /^(!?)([\w./-]+)$/.exec(term);
    if (!existence) throw new SelectorError(`"${term}" is not a label selector term; write key=value, key!=value, key in (a,b), key notin (a,b), key or !key`);
    requirements.push({ key: existence[2]!, operator: existence[1] ? 'DoesNotExist' : 'Exists' });
  }
  return requirements;
}

function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of text) {
    if (character === '(') depth += 1;
    if (character === ')') depth -= 1;
    if (character === ',' && depth === 0) {
      terms.push(current.trim());
      current = '';
    } else current += character;
  }
  if (current.trim()) terms.push(current.trim());
  return terms;
}

/** matches tells whether labels satisfy every requirement. */
export function matches(requirements: readonly Requirement[], labels: Readonly<Record<string, string>>): boolean {
  return requirements.every((requirement) => {
    const value = labels[requirement.key];
    switch (requirement.operator) {
      case 'In': return value !== undefined && requirement.values.includes(value);
      case 'NotIn': return value === undefined || !requirement.values.includes(value);
      case 'Exists': return value !== undefined;
      case 'DoesNotExist': return value === undefined;
    }
  });
}
