import { Value } from '@sinclair/typebox/value';
import type { KubernetesManifest } from '@tidemark/contracts';
import { parseRolloutPolicy, RolloutPolicyError, type RolloutPolicy } from '../rollout-policy';
import { RolloutObjectSpec, rolloutApiVersion, rolloutKind } from './rollout-kind';

/** GitRollout is a Rollout object read from a source's Git: its policy for that source, and where it was read. */
export interface GitRollout {
  policy: RolloutPolicy;
  /** The spec as written: what it leaves out, it does not change in the operator's policy. */
  spec: RolloutObjectSpec;
  /** `path: Rollout namespace/name`, for messages. */
  where: string;
}

/** isRolloutObject tells a Rollout object (read, never applied) from the objects to apply. */
export function isRolloutObject(object: Pick<KubernetesManifest, 'apiVersion' | 'kind'>): boolean {
  return object.apiVersion === rolloutApiVersion && object.kind === rolloutKind;
}

/**
 * parseRolloutObject reads one Rollout object of `source`, found at `path`, into its policy. A bad
 * spec is a RolloutPolicyError naming the file, the object and the field, e.g.
 * `rollouts/apps.yaml: Rollout team-a/apps spec.waves[1].maxParallel: …`.
 */
export function parseRolloutObject(source: string, object: KubernetesManifest, path: string): GitRollout {
  const where = `${path}: Rollout ${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
  const spec = (object as { spec?: unknown }).spec;
  if (!Value.Check(RolloutObjectSpec, spec)) {
    const first = Value.Errors(RolloutObjectSpec, spec).First();
    throw new RolloutPolicyError(`${where} spec${first ? `${first.path.replaceAll('/', '.').replace(/\.(\d+)(?=\.|$)/g, '[$1]')}: ${first.message}` : ': must be an object with waves or manualSync: true'}`);
  }
  // The same reading as a tidemark.yaml rollout: its messages start with the field (spec.waves[0].name: …).
  return { policy: parseRolloutPolicy({ source, ...spec }, `${where} spec`), spec, where };
}
