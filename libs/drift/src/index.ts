export { computeDrift, type DriftInput, type DriftRules } from './compute-drift';
export { leafPaths, ownsPath, type FieldPath, type FieldPathSegment } from './field-set';
export { resolvePath, toPointer } from './resolve-path';
export { driftPolicyOf, driftRulesOf, driftPolicyAnnotation, driftIgnoreAnnotation, type DriftPolicy } from './policy';
