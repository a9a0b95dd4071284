import type { KubernetesManifest } from '../kind-plugin';
import { contentHash } from '@tidemark/contracts';

/**
 * configMapHash is the sha256 of a ConfigMap's data and binaryData in a stable key order, so
 * only a content change (not a label, annotation or resourceVersion) counts as a change.
 */
export function configMapHash(configMap: KubernetesManifest): string {
  return contentHash({ data: configMap.data ?? {}, binaryData: configMap.binaryData ?? {} });
}
