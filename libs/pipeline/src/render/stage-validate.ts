import { TerminalError, groupOf, type KubernetesManifest, type ReconcileFailure } from '@tidemark/contracts';
import { ApiError, applyObject, cleanApiMessage, toReconcileFailure } from '@tidemark/cluster';
import { parseCustomResource, type CustomResource } from '@tidemark/kinds';
import { prevented } from '../gates/stage-gates';
import type { ReconcileRun } from '../run';
import { subjectOf } from '../observe/subject';
import { appliedBefore } from '../apply/apply-results';
import type { PipelineDependencies, PipelineOptions } from '../dependencies';
import { cleanupFinalizer, ownerOfRun, withOwner } from './tracking';

/**
 * ValidatedResource is the defaulted CR, and how the API server checks it: the dry-run that
 * validated it (apply reuses it); none when this very CR was applied to the live version before
 * (appliedBefore); or, for a CR that does not exist yet, its creation by the apply stage
 * (`validatedByCreation`), which applies it before anything it renders.
 */
export interface ValidatedResource {
  resource: CustomResource;
  dryRun?: { object: KubernetesManifest; warnings: string[] };
  validatedByCreation?: true;
}

/** ValidateOptions says what follows the validate stage. */
export interface ValidateOptions {
  /**
   * applyFollows: the apply stage runs next and applies the CR before anything it renders, so a
   * CR that does not exist yet is validated by that creation instead of a dry-run of its own.
   * A preview writes nothing, so its dry-run is the validation. @defaultValue false
   */
  applyFollows?: boolean;
}

/**
 * validateStage has the API server check the CR against its CRD (the OpenAPI schema and CEL
 * rules), then parses it into its kind's spec type and fills in the kind's defaults: the CR that
 * features, render and act read. The check is a server-side dry-run whose result goes with the
 * CR, so the apply stage does not dry-run it a second time. Two runs need none:
 * - a CR whose last apply left the live CR at the version it still has: the API server took this
 *   very object then, and with validation ratcheting an unchanged object passes a changed CRD too;
 * - a CR that does not exist yet, when apply follows: a dry-run of a create could only say what
 *   the create says, and apply creates the CR first, so a refused CR stops the run before any
 *   object it renders is written (render reads the CR from Git, never from the dry-run).
 * Plain manifests are validated by the apply stage's own dry-run (undefined here).
 */
/** ValidateDependencies is what validate reads: the kinds and which sources may ship a built-in CRD. */
export type ValidateDependencies = Parameters<typeof checkBuiltinCrdConflict>[1];

export async function validateStage(run: ReconcileRun, deps: ValidateDependencies, options: ValidateOptions = {}): Promise<ValidatedResource | undefined> {
  run.stage = 'validate';
  checkBuiltinCrdConflict(run, deps);
  if (!run.plugin || !run.object) return undefined;
  const check = await checkCustomResource(run, options);
  const parsed = parseCustomResource(run.plugin, run.object, run.desired?.path ?? 'Git');
  return { resource: { ...parsed, spec: run.plugin.applyDefaults(parsed.spec) }, ...check };
}

/** checkCustomResource decides how the API server checks the CR (see validateStage), and dry-runs it when that is how. */
async function checkCustomResource(run: ReconcileRun, options: ValidateOptions): Promise<Omit<ValidatedResource, 'resource'>> {
  if (run.live === undefined && options.applyFollows) return { validatedByCreation: true };
  const applied = customResourceToApply(run);
  if (run.live !== undefined && appliedBefore(run.previous)(applied, run.live) !== undefined) return {};
  return { dryRun: await dryRunCustomResource(run, applied) };
}

/** dryRunCustomResource has the API server check the CR (schema, CEL); an invalid CR is a terminal failure naming its file. */
async function dryRunCustomResource(run: ReconcileRun, applied: KubernetesManifest): Promise<NonNullable<ValidatedResource['dryRun']>> {
  const warnings: string[] = [];
  try {
    return { object: await applyObject(run.connection, applied, { dryRun: true, warnings }), warnings };
  } catch (error) {
    throw validationFailure(run, error);
  }
}

/**
 * validationFailure is what the API server's refusal of the CR (its dry-run, or its creation)
 * means for the run: an invalid CR is a terminal ValidationFailed naming its file and the API
 * server's message; anything else keeps its own kind (forbidden, transient, …).
 */
export function validationFailure(run: Pick<ReconcileRun, 'ref' | 'desired' | 'object' | 'live' | 'previous'>, error: unknown): ReconcileFailure {
  const failure = toReconcileFailure(error, `validate ${subjectOf(run)}`);
  const cause = error instanceof ApiError ? error : failure.cause;
  if (failure instanceof TerminalError && failure.category === 'invalid' && cause instanceof ApiError) {
    return new TerminalError('ValidationFailed',
      `${run.desired?.path ?? 'Git'}: ${subjectOf(run)} is invalid: ${cleanApiMessage(cause.body.message ?? cause.message)}. Fix it in Git; it is not retried until its spec changes.`,
      { cause, ...(failure.detail ? { detail: failure.detail } : {}) });
  }
  return failure;
}

/**
 * customResourceToApply is the CR as Git declares it, plus Tidemark's cleanup finalizer and
 * owner annotation (so a change to the CR in the cluster wakes it, like its owned objects).
 */
export function customResourceToApply(run: Pick<ReconcileRun, 'job' | 'object' | 'prevention'>): KubernetesManifest {
  const object = prevented(run, withOwner(run.object!, ownerOfRun(run)));
  const finalizers = [...new Set([...(object.metadata.finalizers ?? []), cleanupFinalizer])];
  return { ...object, metadata: { ...object.metadata, finalizers } };
}

/**
 * checkBuiltinCrdConflict refuses a Git object that declares the CRD of a built-in kind:
 * Tidemark installs and keeps those CRDs itself, and one from Git would replace it for every
 * object of that kind in the cluster. Nothing is applied from such an object unless its source
 * is allowed to manage that CRD (`manageBuiltinCrds` in the source's config).
 */
export function checkBuiltinCrdConflict(run: ReconcileRun, deps: { kinds: Pick<PipelineDependencies['kinds'], 'list'>; options?: Pick<PipelineOptions, 'builtinCrdSources'> }): void {
  const object = run.object;
  if (!object || object.kind !== 'CustomResourceDefinition' || groupOf(object.apiVersion) !== 'apiextensions.k8s.io') return;
  const builtin = deps.kinds.list().find((plugin) => plugin.crd.metadata.name === object.metadata.name);
  if (!builtin) return;
  if (deps.options?.builtinCrdSources?.[object.metadata.name]?.includes(run.job.source)) return;
  const where = run.desired ? `${run.desired.path}${run.desired.line ? `:${run.desired.line}` : ''}` : 'Git';
  throw new TerminalError('Conflict',
    `CustomResourceDefinition ${object.metadata.name} (${where}) is the CRD of Tidemark's built-in kind ${builtin.kind} (${builtin.group}/${builtin.version}), ` +
    `which Tidemark installs and keeps itself; nothing is applied from this file. Remove it from Git, or allow source ${run.job.source} to manage it ` +
    `with manageBuiltinCrds: [${object.metadata.name}] in its source config.`);
}
