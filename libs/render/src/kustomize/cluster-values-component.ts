import { parse, stringify } from 'yaml';
import { messageOf } from '@tidemark/contracts';
import { substituteDeep, type ClusterValues } from '../cluster-values';
import { RenderFailure } from '../render-failure';
import type { UnitConfig } from '../unit-config';

type Overrides = NonNullable<UnitConfig['kustomize']>;

/**
 * clusterValuesComponent is the kustomize Component Tidemark generates beside a unit from its
 * tidemark-render.yaml labels, annotations and patches, or undefined when it sets none. A patch is
 * parsed first and the cluster's values replace `${cluster.…}` inside its values only, so a value
 * can never add a field, an operation or a patch of its own. Labels stay off selectors and pod
 * templates: a selector that changed would orphan the pods a Deployment already has.
 */
export function clusterValuesComponent(overrides: Overrides, cluster: ClusterValues | undefined, where: string): Record<string, unknown> | undefined {
  const { labels, annotations, patches } = overrides;
  if (!isSet(labels) && !isSet(annotations) && !isSet(patches)) return undefined;
  return {
    apiVersion: 'kustomize.config.k8s.io/v1alpha1',
    kind: 'Component',
    ...(labels && isSet(labels) ? { labels: [{ pairs: labels, includeSelectors: false, includeTemplates: false }] } : {}),
    ...(annotations && isSet(annotations) ? { commonAnnotations: annotations } : {}),
    ...(patches?.length ? { patches: patches.map((entry, index) => ({ patch: patchText(entry.patch, cluster, `${where}: kustomize.patches[${index}]`), ...(entry.target ? { target: entry.target } : {}) })) } : {}),
  };
}

function patchText(text: string, cluster: ClusterValues | undefined, where: string): string {
  let parsed: unknown;
  try {
    parsed = parse(text, { maxAliasCount: 10 });
  } catch (error) {
    throw new RenderFailure('RenderConfigInvalid', `${where} is not YAML: ${messageOf(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new RenderFailure('RenderConfigInvalid', `${where} must be a strategic merge patch (a mapping) or a JSON 6902 patch (a list)`);
  return stringify(cluster ? substituteDeep(parsed, cluster, where) : parsed);
}

/** isSet tells whether a config value says anything: a non-empty list or mapping, or any other value. */
export function isSet(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return value !== undefined;
}
