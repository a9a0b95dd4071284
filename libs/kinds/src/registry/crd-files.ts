import { stringify } from 'yaml';
import type { KubernetesManifest } from '../kind-plugin';
import type { RegisteredKind } from './kind-registry';

/** CrdFile is one CRD as it is committed under deploy/crds. */
export interface CrdFile {
  /** `<plural>.<group>.yaml`, the CRD's own name. */
  fileName: string;
  content: string;
}

const header = '# Generated from libs/kinds by `npx tsx scripts/generate-crds.ts`; do not edit by hand.\n';

/**
 * crdFiles renders the CRDs of the given kinds as YAML. The generator script writes them and
 * a unit test compares them with deploy/crds, so the committed files cannot drift.
 */
export function crdFiles(kinds: readonly RegisteredKind[]): CrdFile[] {
  return kinds.map((kind) => ({ fileName: `${kind.crd.metadata.name}.yaml`, content: header + crdYaml(kind.crd) }));
}

function crdYaml(crd: KubernetesManifest): string {
  // lineWidth 0: long descriptions and CEL rules stay on one line, so diffs stay readable.
  return stringify(crd, { lineWidth: 0 });
}
