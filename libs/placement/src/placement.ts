import ignore from 'ignore';
import { messageOf, type KubernetesManifest } from '@tidemark/contracts';
import { matches, parseSelector, requirementsOf, SelectorError, type LabelSelector, type Requirement } from './label-selector';
import { compileRuleVariables, variablesFor, type RuleVariables } from './rule-variables';
import { compileRuleIdentity, type PlacedIdentity, type RuleServiceAccount } from './rule-identity';

/** The kind of the Git object that holds placement rules; it is read, never applied. */
export const placementApiVersion = 'tidemark.dev/v1alpha1';
export const placementKind = 'Placement';
/** Annotation by which an object picks its clusters itself, as a label selector string. */
export const clusterSelectorAnnotation = 'tidemark.dev/cluster-selector';

/** ClusterTarget is a registered cluster as placement sees it. */
export interface ClusterTarget {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** UnitTarget is a cluster a render unit goes to, with the variables its Placement rule gives that cluster. */
export interface UnitTarget {
  name: string;
  variables: Record<string, string>;
}

interface CompiledRule {
  source: string;
  matcher: ReturnType<typeof ignore>;
  requirements: Requirement[];
  variables: RuleVariables;
  serviceAccount: RuleServiceAccount | undefined;
}

interface RuleInput {
  paths?: string[];
  clusterSelector?: LabelSelector;
  variables?: unknown;
  clusterVariables?: unknown;
  serviceAccount?: unknown;
}

/**
 * PlacementRules decide which clusters an object goes to. Rules come from Placement objects in
 * Git: each lists path patterns (gitignore syntax, relative to the repository root) and a
 * cluster selector. The first rule whose paths match the object's file wins; an object no rule
 * matches goes to every cluster; an object's own tidemark.dev/cluster-selector annotation wins
 * over every rule. A rule may name the ServiceAccount its objects are applied with (identityFor).
 */
export class PlacementRules {
  private constructor(private readonly rules: CompiledRule[]) {}

  static none(): PlacementRules {
    return new PlacementRules([]);
  }

  /** fromObjects compiles Placement objects, in a stable order (by name); bad rules throw SelectorError naming them. */
  static fromObjects(objects: readonly KubernetesManifest[]): PlacementRules {
    const sorted = [...objects].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const rules: CompiledRule[] = [];
    for (const object of sorted) {
      const spec = (object.spec ?? {}) as { rules?: RuleInput[] };
      (spec.rules ?? []).forEach((rule, index) => {
        const where = `Placement ${object.metadata.name} spec.rules[${index}]`;
        if (!rule.paths?.length) throw new SelectorError(`${where}.paths: list at least one path pattern`);
        const variables = compileRuleVariables(rule, where);
        const serviceAccount = compileRuleIdentity(rule.serviceAccount, where);
        try {
          rules.push({ source: where, matcher: ignore().add(rule.paths), requirements: requirementsOf(rule.clusterSelector ?? {}), variables, serviceAccount });
        } catch (error) {
          throw new SelectorError(`${where}: ${messageOf(error)}`);
        }
      });
    }
    return new PlacementRules(rules);
  }

  /** targets returns the names of the clusters an object declared in `path` goes to. */
  targets(object: KubernetesManifest | undefined, path: string, clusters: readonly ClusterTarget[]): string[] {
    return this.targetsFor(path, object?.metadata.annotations?.[clusterSelectorAnnotation], clusters);
  }

  /** targetsFor is targets for an object known by its path and its cluster-selector annotation only. */
  targetsFor(path: string, clusterSelector: string | undefined, clusters: readonly ClusterTarget[]): string[] {
    const requirements = this.requirementsFor(path, clusterSelector);
    return clusters.filter((cluster) => matches(requirements, cluster.labels)).map((cluster) => cluster.name);
  }

  /**
   * unitTargets says which clusters a render unit in `folder` is rendered for, and the variables
   * the first rule matching the folder gives each (its `variables`, then each `clusterVariables`
   * entry whose selector matches the cluster). No rule: every cluster, no variables. A rendered
   * object's own cluster-selector annotation is not known before the render, so it cannot widen this.
   */
  unitTargets(folder: string, clusters: readonly ClusterTarget[]): UnitTarget[] {
    const rule = this.ruleFor(`${folder.replace(/\/+$/, '')}/`);
    const selected = rule ? clusters.filter((cluster) => matches(rule.requirements, cluster.labels)) : clusters;
    return selected.map((cluster) => ({ name: cluster.name, variables: rule ? variablesFor(rule.variables, cluster.labels) : {} }));
  }

  /**
   * identityFor is the ServiceAccount of the rule that places what is declared at `path` (a file, or
   * a render unit's folder ending in '/'): the first rule whose paths match it, as for its clusters.
   * An object's own cluster-selector annotation chooses its clusters, never its identity, so it
   * cannot step out of its rule's ServiceAccount. undefined: no rule matches, or it names none.
   */
  identityFor(path: string): PlacedIdentity | undefined {
    const rule = this.ruleFor(path);
    return rule?.serviceAccount ? { rule: rule.source, serviceAccount: rule.serviceAccount } : undefined;
  }

  private requirementsFor(path: string, clusterSelector: string | undefined): Requirement[] {
    if (clusterSelector !== undefined) return parseSelector(clusterSelector);
    return this.ruleFor(path)?.requirements ?? [];
  }

  private ruleFor(path: string): CompiledRule | undefined {
    return this.rules.find((candidate) => candidate.matcher.ignores(path.replace(/^\/+/, '')));
  }
}

/** isPlacementObject tells the objects that hold rules apart from the ones to apply. */
export function isPlacementObject(apiVersion: string, kind: string): boolean {
  return apiVersion === placementApiVersion && kind === placementKind;
}
