// Owns: the order objects are applied in: depends-on references, sync waves, sync hooks around them, the implicit order of CRDs and
//   Namespaces before what needs them, cycle detection, and the registry that wakes a waiting object when
//   its dependency is ready. Pure rules plus that one registry.
// Entry points: buildRevisionOrdering (hooks included: hook-ordering.ts), parseDependsOn, parseSyncWave, DependencyWaits.
// Records: the dependency waiters (waiters:<cluster>:<token>).
// May import: @tidemark/contracts.

export { buildRevisionOrdering, describeCycle, type Dependency, type OrderedObject, type OrderingNode, type RevisionOrdering } from './revision-ordering';
export { objectToken, crdToken } from './wait-token';
export { preDeleteRun, type HookRun } from './hook-ordering';
export { DependencyWaits } from './dependency-waits';
export { healthTimeoutAnnotation, parseHealthTimeout, formatDuration } from './health-timeout';
