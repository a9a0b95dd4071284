import type { KubernetesManifest } from './manifest';

/**
 * Sync hooks: an object that runs in a phase of each revision that changes what its source
 * applies, instead of being applied as part of it. Tidemark's own annotations and Helm's are both
 * read here, the one place that decides what a hook is (ordering, the pipeline, routing, previews
 * and the watches all ask parseHook).
 */
export const hookAnnotation = 'tidemark.dev/hook';
/** hookWeightAnnotation orders hooks of one phase, lowest first (Helm's `helm.sh/hook-weight` is read too). */
export const hookWeightAnnotation = 'tidemark.dev/hook-weight';
/** hookDeletePolicyAnnotation says when a hook's run is deleted (Helm's `helm.sh/hook-delete-policy` is read too). */
export const hookDeletePolicyAnnotation = 'tidemark.dev/hook-delete-policy';
/** hookRunAnnotation marks the object a hook's run applied: the run's id. Such an object is never drift. */
export const hookRunAnnotation = 'tidemark.dev/hook-run';

/** helmHookAnnotation is Helm's own hook annotation, read as a hook too. */
export const helmHookAnnotation = 'helm.sh/hook';
const helmHook = helmHookAnnotation;
const helmWeight = 'helm.sh/hook-weight';
const helmDeletePolicy = 'helm.sh/hook-delete-policy';

/** HookPhase is when a hook runs, relative to the apply of its source revision. */
export type HookPhase = 'pre-apply' | 'post-apply' | 'apply-failed' | 'pre-delete';
export const hookPhases: readonly HookPhase[] = ['pre-apply', 'post-apply', 'apply-failed', 'pre-delete'];

/** HookDeletePolicy is when a run is deleted: before the next run is created (the default), once it succeeded, once it failed. */
export type HookDeletePolicy = 'before-hook-creation' | 'hook-succeeded' | 'hook-failed';
const deletePolicies: readonly HookDeletePolicy[] = ['before-hook-creation', 'hook-succeeded', 'hook-failed'];

/** Helm's hook names, as Tidemark's phases; a name missing here has no moment in Tidemark. */
const helmPhases: Record<string, HookPhase> = {
  'pre-install': 'pre-apply',
  'pre-upgrade': 'pre-apply',
  'post-install': 'post-apply',
  'post-upgrade': 'post-apply',
  'pre-delete': 'pre-delete',
};
/** Helm hook names Tidemark never runs: it has no rollback, and nothing left to run after a delete. */
const helmNeverRun = new Set(['post-delete', 'pre-rollback', 'post-rollback', 'test', 'test-success', 'test-failure']);

/** Hook is what an object's annotations say about its hook. */
export interface Hook {
  phase: HookPhase;
  /** Lower runs first within the phase. @defaultValue 0 */
  weight: number;
  deletePolicies: HookDeletePolicy[];
  /** Which annotation made it a hook. */
  declaredBy: 'tidemark' | 'helm';
}

/** HookReading is a hook, no hook (`undefined` hook), a hook Tidemark never runs (`skipped`), or a problem sentence. */
export interface HookReading {
  hook?: Hook;
  /** Set for a Helm hook with no moment in Tidemark (post-delete, rollback): the object is never applied. */
  skipped?: string;
  problem?: string;
}

const weightPattern = /^[-+]?\d{1,6}$/;

/**
 * parseHook reads an object's hook annotations. `tidemark.dev/hook` wins over `helm.sh/hook`; a
 * Helm hook that names several events maps each (pre-install,pre-upgrade is one pre-apply hook),
 * and one that maps onto two different phases is a problem, as is an unknown phase, weight or policy.
 */
export function parseHook(object: Pick<KubernetesManifest, 'metadata'>): HookReading {
  const annotations = object.metadata.annotations ?? {};
  const own = annotations[hookAnnotation];
  const helm = annotations[helmHook];
  if (own === undefined && helm === undefined) return {};
  const phase = own !== undefined ? ownPhase(own) : helmPhase(helm!);
  if ('problem' in phase || 'skipped' in phase) return phase;
  const weight = readWeight(annotations);
  if (typeof weight === 'string') return { problem: weight };
  const policies = readPolicies(annotations);
  if (typeof policies === 'string') return { problem: policies };
  return { hook: { phase: phase.phase, weight, deletePolicies: policies, declaredBy: own !== undefined ? 'tidemark' : 'helm' } };
}

/** readWeight is the hook's weight (Tidemark's annotation, else Helm's; 0 without), or the problem sentence. */
function readWeight(annotations: Record<string, string>): number | string {
  const name = annotations[hookWeightAnnotation] !== undefined ? hookWeightAnnotation : helmWeight;
  const text = annotations[name];
  if (text === undefined) return 0;
  if (weightPattern.test(text.trim())) return Number.parseInt(text.trim(), 10);
  return `annotation ${name}: "${text.slice(0, 40)}" is not a hook weight: write a whole number such as "-5" or "10".`;
}

/** readPolicies is the hook's delete policies (before-hook-creation without any, as Helm), or the problem sentence. */
function readPolicies(annotations: Record<string, string>): HookDeletePolicy[] | string {
  const name = annotations[hookDeletePolicyAnnotation] !== undefined ? hookDeletePolicyAnnotation : helmDeletePolicy;
  const text = annotations[name];
  if (text === undefined) return ['before-hook-creation'];
  const policies = splitList(text);
  const unknown = policies.find((policy) => !deletePolicies.includes(policy as HookDeletePolicy));
  if (unknown !== undefined) return `annotation ${name}: "${unknown.slice(0, 40)}" is not a delete policy: write ${deletePolicies.join(', ')}.`;
  return policies as HookDeletePolicy[];
}

/** isHookObject: the object declares a hook (even one with a problem), so it is no ordinary object of its revision. */
export function isHookObject(object: Pick<KubernetesManifest, 'metadata'>): boolean {
  const annotations = object.metadata.annotations;
  return annotations?.[hookAnnotation] !== undefined || annotations?.[helmHook] !== undefined;
}

function ownPhase(value: string): { phase: HookPhase } | { problem: string } {
  const phase = value.trim() as HookPhase;
  if (hookPhases.includes(phase)) return { phase };
  return { problem: `annotation ${hookAnnotation}: "${value.slice(0, 40)}" is not a hook phase: write ${hookPhases.join(', ')}.` };
}

function helmPhase(value: string): { phase: HookPhase } | { problem: string } | { skipped: string } {
  const events = splitList(value);
  const unknown = events.find((event) => helmPhases[event] === undefined && !helmNeverRun.has(event));
  if (unknown !== undefined) return { problem: `annotation ${helmHook}: "${unknown.slice(0, 40)}" is not a Helm hook Tidemark knows: write one of ${[...Object.keys(helmPhases), ...helmNeverRun].join(', ')}.` };
  const phases = [...new Set(events.flatMap((event) => helmPhases[event] ?? []))];
  if (phases.length === 0) return { skipped: `Helm hook ${events.join(',')} has no moment in Tidemark (no rollback, nothing runs after a delete); it is not applied.` };
  if (phases.length > 1) return { problem: `annotation ${helmHook}: "${value.slice(0, 80)}" runs in ${phases.join(' and ')}; a hook runs in one phase, so split it into two objects.` };
  return { phase: phases[0]! };
}

function splitList(value: string): string[] {
  return value.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

/** hookRunName is a run's object name: the Git name with the run id, cut to fit a label value (a Job's name is one). */
export function hookRunName(name: string, runId: string): string {
  return `${name.slice(0, 62 - runId.length).replace(/[-.]+$/, '')}-${runId}`;
}
