import type { Health, KubernetesManifest } from '../kind-plugin';
import { isPlainObject, type PlainObject } from '../shared/plain-object';

/** StatusCondition is the part of a status condition health rules read. */
export interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** statusOf returns an object's status, or an empty one before any controller wrote it. */
export function statusOf(live: KubernetesManifest): PlainObject {
  return isPlainObject(live.status) ? live.status : {};
}

/** specOf returns an object's spec, or an empty one. */
export function specOf(live: KubernetesManifest): PlainObject {
  return isPlainObject(live.spec) ? live.spec : {};
}

/** numberAt reads a numeric field; a missing field counts as `fallback`. */
export function numberAt(fields: PlainObject, key: string, fallback = 0): number {
  const value = fields[key];
  return typeof value === 'number' ? value : fallback;
}

/** conditionOf finds a status condition by type, ignoring malformed entries. */
export function conditionOf(live: KubernetesManifest, type: string): StatusCondition | undefined {
  const conditions = statusOf(live).conditions;
  if (!Array.isArray(conditions)) {
    return undefined;
  }
  return conditions.filter(isStatusCondition).find((condition) => condition.type === type);
}

function isStatusCondition(value: unknown): value is StatusCondition {
  return isPlainObject(value) && typeof value.type === 'string' && typeof value.status === 'string';
}

/** describe names an object the way messages should: "Deployment shop/web". */
export function describe(live: KubernetesManifest): string {
  const namespace = live.metadata.namespace;
  return `${live.kind} ${namespace ? `${namespace}/` : ''}${live.metadata.name}`;
}

/**
 * generationLag says the controller has not yet seen the latest spec: everything else in the
 * status then describes an older spec and must not be trusted.
 */
export function generationLag(live: KubernetesManifest): Health | undefined {
  const generation = live.metadata.generation;
  const observed = statusOf(live).observedGeneration;
  if (typeof generation !== 'number' || typeof observed !== 'number' || observed >= generation) {
    return undefined;
  }
  return {
    status: 'Progressing',
    message: `${describe(live)} has not observed generation ${generation} yet (observed ${observed}); wait for its controller, or check that the controller is running.`,
  };
}

/** conditionMessage appends a condition's own message when it has one (without its final period, as ours follows). */
export function conditionMessage(condition: StatusCondition): string {
  return condition.message ? `: ${condition.message.replace(/\.+$/, '')}` : '';
}
