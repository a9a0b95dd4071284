// Owns: drift as data: which fields Tidemark's field manager owns, the field-by-field comparison of desired
//   and live objects, and the drift policy and ignore annotations. Pure functions.
// Entry points: computeDrift, driftPolicyOf, driftRulesOf; preventionPolicy (the admission policy that
//   refuses edits of prevented objects made outside Git).
// Records: none.
// May import: @tidemark/contracts.

export { computeDrift, type DriftRules } from './compute-drift';
export { driftPolicyOf, driftRulesOf, type DriftPolicy } from './policy';
export { preventionPolicy, withPrevention, isPrevented, breakGlassOf, trustedUsersOf, tenantUsersOf, mergeTenantUsers, preventedKindsOf, defaultPreventionRules, preventLabel, breakGlassAnnotation, preventionPolicyName, type PreventionRules } from './prevention';
