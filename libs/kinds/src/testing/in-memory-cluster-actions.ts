import type { ClusterActions, KubernetesManifest } from '../kind-plugin';
import { deepMerge } from '../shared/deep-merge';

/**
 * InMemoryClusterActions is a TEST DOUBLE of ClusterActions for unit tests of act(): a list
 * of objects in memory, with label-selector filtering, deletes and a merge for applyPatch.
 * It records every delete and patch so tests can assert what a kind did. It is not a
 * Kubernetes API: real behaviour is covered by the rig suites under test/.
 */
export class InMemoryClusterActions implements ClusterActions {
  readonly deleted: KubernetesManifest[] = [];
  readonly patches: KubernetesManifest[] = [];
  private objects: KubernetesManifest[];

  constructor(objects: KubernetesManifest[] = []) {
    this.objects = objects.map((object) => structuredClone(object));
  }

  /** put adds or replaces an object, as a person editing the cluster by hand would. */
  put(object: KubernetesManifest): void {
    this.objects = [...this.objects.filter((existing) => !sameObject(existing, object)), structuredClone(object)];
  }

  async get(apiVersion: string, kind: string, namespace: string, name: string): Promise<KubernetesManifest | undefined> {
    const found = this.objects.find((object) => object.apiVersion === apiVersion && object.kind === kind && object.metadata.namespace === namespace && object.metadata.name === name);
    return found && structuredClone(found);
  }

  async list(apiVersion: string, kind: string, namespace: string, labelSelector: Record<string, string> = {}): Promise<KubernetesManifest[]> {
    return this.objects
      .filter((object) => object.apiVersion === apiVersion && object.kind === kind && object.metadata.namespace === namespace)
      .filter((object) => Object.entries(labelSelector).every(([key, value]) => object.metadata.labels?.[key] === value))
      .map((object) => structuredClone(object));
  }

  async delete(object: KubernetesManifest): Promise<void> {
    this.deleted.push(structuredClone(object));
    this.objects = this.objects.filter((existing) => !sameObject(existing, object));
  }

  async applyPatch(object: KubernetesManifest): Promise<void> {
    this.patches.push(structuredClone(object));
    this.objects = this.objects.map((existing) => (sameObject(existing, object) ? (deepMerge(existing, object) as KubernetesManifest) : existing));
  }
}

function sameObject(left: KubernetesManifest, right: KubernetesManifest): boolean {
  return left.kind === right.kind && left.metadata.namespace === right.metadata.namespace && left.metadata.name === right.metadata.name;
}
