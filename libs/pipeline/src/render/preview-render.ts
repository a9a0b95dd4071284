import { parseObjectKey, type KubernetesManifest } from '@tidemark/contracts';
import { noSpan } from '@tidemark/tracing';
import { toReconcileFailure, type ClusterConnection } from '@tidemark/cluster';
import type { KindRegistry } from '@tidemark/kinds';
import type { StatusStore } from '@tidemark/status-store';
import type { DesiredStateReader, PipelineDependencies, PipelineOptions } from '../dependencies';
import { runConnections, identityFailure } from '../fetch/tenancy';
import { subjectOf } from '../observe/subject';
import { isSkipped, type ReconcileRun } from '../run';
import { recordFetched } from '../reconcile';
import { fetchStage, type FetchDependencies } from '../fetch/stage-fetch';
import { featuresStage, renderStage } from './stage-render';
import { validateStage, customResourceToApply, type ValidateDependencies } from './stage-validate';
import { preventionCheck } from '../gates/stage-gates';

/** PreviewRenderInput names one object of a revision that is not (yet) applied, on one cluster. */
export interface PreviewRenderInput {
  source: string;
  revision: string;
  cluster: string;
  objectKey: string;
}

/** PreviewRenderDependencies are the read-only part of PipelineDependencies that a preview needs. */
export interface PreviewRenderDependencies {
  /** A connection with Tidemark's field manager: the preview's dry-runs must look like its applies. */
  connectionFor(cluster: string): ClusterConnection;
  /**
   * Reads the previewed revision (a pull request's head, not the source's ref): no admitRevision.
   * With identityAt, a Placement rule's ServiceAccount at that revision is the identity, as in reconcile.
   */
  desired: Pick<DesiredStateReader, 'readObject' | 'identityAt'>;
  /**
   * The source's identity and allow-list: a preview dry-runs as reconcile would apply. Without it (the
   * CLI's diff) everything runs as connectionFor's own identity, and Placement rules name none.
   */
  tenancyFor?: PipelineDependencies['tenancyFor'];
  /** A source's default drift policy, so a prevented object is previewed with the label reconcile gives it. */
  driftPolicyFor?: PipelineDependencies['driftPolicyFor'];
  kinds: KindRegistry;
  /** Read only: the last status says whether the object is suspended. Nothing is written. */
  statusStore: Pick<StatusStore, 'get'>;
  options?: Pick<PipelineOptions, 'defaultNamespace' | 'builtinCrdSources' | 'driftPolicies'>;
}

/** PreviewRendered is what reconcile would apply for one object on one cluster, and the live object. */
export interface PreviewRendered {
  /** Set when nothing would be applied: 'not-desired' (not in Git or not placed here) or 'suspended'. */
  skipped?: 'not-desired' | 'suspended';
  /** The objects reconcile would server-side apply, in the order it would: the CR first, for a kind. */
  objects: KubernetesManifest[];
  /** The file (and line) in Git that declares the object. */
  path?: string;
  line?: number;
  /** The identity reconcile would apply the objects as (a Placement rule's, the source's, or Tidemark's): dry-run them with it. */
  connection: ClusterConnection;
}

/**
 * renderForPreview runs the pipeline's own fetch, validate, features and render stages for one
 * object at a revision, and stops before apply: what the preview dry-runs is exactly what
 * reconcile would apply. Validate's server-side dry-run runs against the live cluster, so an
 * invalid CR fails here with the API server's message (a TerminalError ValidationFailed).
 * Nothing is written to the cluster or to the status store. What fetch refuses (a rule's ServiceAccount
 * the source may not use, the API server's answer to that identity) is thrown, as reconcile fails with it.
 */
export async function renderForPreview(input: PreviewRenderInput, deps: PreviewRenderDependencies): Promise<PreviewRendered> {
  const job = { ...input, reason: 'manual' as const };
  // A preview never writes, so the actions connection is the plain one; the source's identity applies all the same.
  const stageDeps: PreviewStageDependencies = { ...deps, actionsConnectionFor: deps.connectionFor };
  const connections = runConnections(job, stageDeps);
  const run: ReconcileRun = {
    // 'manual': a stalled object's unchanged spec is previewed again, not skipped.
    job,
    ref: parseObjectKey(input.objectKey),
    startedAt: new Date(),
    stage: 'fetch',
    connection: connections.connection,
    actionsConnection: connections.actions,
    reportingConnection: connections.reporting,
    span: noSpan,
  };
  try {
    return await previewStages(run, stageDeps);
  } catch (error) {
    // As reconcile reports it: the API server's 403 to a ServiceAccount is terminal, naming that identity.
    throw identityFailure(run, toReconcileFailure(error, `${run.stage} ${subjectOf(run)}`));
  }
}

/** PreviewStageDependencies is what the stages a preview runs read: readers only, each stage's own narrow part. */
type PreviewStageDependencies = FetchDependencies & ValidateDependencies & Parameters<typeof preventionCheck>[1];

async function previewStages(run: ReconcileRun, deps: PreviewStageDependencies): Promise<PreviewRendered> {
  const fetched = await fetchStage(run, deps);
  recordFetched(run, fetched);
  if (fetched.action === 'fail') throw fetched.failure;
  const located = { ...(run.desired ? { path: run.desired.path } : {}), ...(run.desired?.line ? { line: run.desired.line } : {}), connection: run.connection };
  if (isSkipped(run)) return { skipped: 'suspended', objects: [], ...located };
  if (!run.desired || !run.object) return { skipped: 'not-desired', objects: [], ...located };
  // Labels a prevented object as reconcile would (the preview's readers hold no policy keeper: nothing is written).
  await preventionCheck(run, deps);
  const defaulted = (await validateStage(run, deps))?.resource;
  const rendered = renderStage(run, defaulted, featuresStage(run, defaulted));
  return { objects: run.plugin ? [customResourceToApply(run), ...rendered] : rendered, ...located };
}
