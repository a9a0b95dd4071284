export { PlacementRules, isPlacementObject, placementApiVersion, placementKind, clusterSelectorAnnotation, type ClusterTarget } from './placement';
export { parseSelector, requirementsOf, matches, SelectorError, type LabelSelector, type Requirement } from './label-selector';
export { rulesAt, PlacementCache, isPlacementKey, type PlacementSource } from './source-placement';
