// Owns: which clusters an object goes to: Placement objects in Git, label selectors, and the
//   cluster-selector annotation. Pure rules plus a per-revision cache.
// Entry points: PlacementRules, PlacementCache, rulesAt.
// Records: none.
// May import: @tidemark/contracts.

export { PlacementRules, isPlacementObject, placementApiVersion, placementKind, clusterSelectorAnnotation, type ClusterTarget, type UnitTarget } from './placement';
export { type PlacedIdentity, type RuleServiceAccount } from './rule-identity';
export { SelectorError, type LabelSelector, type Requirement } from './label-selector';
export { rulesAt, PlacementCache, isPlacementKey, type PlacementSource } from './source-placement';
