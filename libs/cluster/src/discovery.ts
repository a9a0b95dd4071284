import { NotReadyError } from '@tidemark/contracts';
import type { KubeClient } from './kube-client';
import { ApiError } from './api-error';
import type { ApiResource } from './resource-path';
import { splitApiVersion } from './resource-path';

interface ResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

interface ApiGroup {
  preferredVersion?: { version: string };
  versions?: { version: string }[];
}

/**
 * Discovery maps (apiVersion, kind) to REST resources, caching each group-version. A miss
 * refreshes the group-version once, since a CRD may have been established since the last look.
 */
export class Discovery {
  private readonly groupVersions = new Map<string, Promise<ApiResource[]>>();
  private readonly preferred = new Map<string, Promise<string>>();

  constructor(private readonly client: KubeClient) {}

  /** resourceFor returns the resource of a kind; NotReadyError when the server does not serve it. */
  async resourceFor(apiVersion: string, kind: string): Promise<ApiResource> {
    const found = (await this.list(apiVersion)).find((resource) => resource.kind === kind);
    if (found) return found;
    this.groupVersions.delete(apiVersion);
    const refreshed = (await this.list(apiVersion)).find((resource) => resource.kind === kind);
    if (refreshed) return refreshed;
    throw new NotReadyError('KindNotServed', `waiting for ${kind} (${apiVersion}) to be served on cluster ${this.client.cluster}: install its CRD, or fix apiVersion and kind if they are misspelt.`, 5_000);
  }

  /**
   * resolveKind finds a kind however Git spells it: the kind itself, or the same in another case,
   * or its resource name (`Deployment`, `deployment`, `deployments`). undefined when the
   * group-version serves nothing by that name; network failures throw.
   */
  async resolveKind(apiVersion: string, spelling: string): Promise<ApiResource | undefined> {
    const lower = spelling.toLowerCase();
    const find = (list: ApiResource[]) => list.find((resource) => resource.kind === spelling)
      ?? list.find((resource) => resource.kind.toLowerCase() === lower || resource.plural === lower);
    const found = find(await this.list(apiVersion));
    if (found) return found;
    this.groupVersions.delete(apiVersion);
    return find(await this.list(apiVersion));
  }

  /** resourceForGroupKind finds a kind by group alone, at the group's preferred version. */
  async resourceForGroupKind(group: string, kind: string): Promise<ApiResource> {
    const version = await this.preferredVersion(group);
    try {
      return await this.resourceFor(group === '' ? version : `${group}/${version}`, kind);
    } catch (error) {
      // A group's kinds need not share its preferred version (tidemark.dev: WebApp v1, Source v1alpha1).
      if (group === '' || !(error instanceof NotReadyError)) throw error;
      const answer = await this.client.request<ApiGroup>({ method: 'GET', path: `/apis/${group}`, what: `discover group ${group}` });
      for (const other of answer.versions ?? []) {
        if (other.version === version) continue;
        const found = (await this.list(`${group}/${other.version}`)).find((resource) => resource.kind === kind);
        if (found) return found;
      }
      throw error;
    }
  }

  /** forget drops what is cached, so a changed CRD is seen. */
  forget(): void {
    this.groupVersions.clear();
    this.preferred.clear();
  }

  private list(apiVersion: string): Promise<ApiResource[]> {
    let entry = this.groupVersions.get(apiVersion);
    if (!entry) {
      entry = this.fetchGroupVersion(apiVersion);
      entry.catch(() => this.groupVersions.delete(apiVersion));
      this.groupVersions.set(apiVersion, entry);
    }
    return entry;
  }

  private async fetchGroupVersion(apiVersion: string): Promise<ApiResource[]> {
    const { group, version } = splitApiVersion(apiVersion);
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    try {
      const list = await this.client.request<ResourceList>({ method: 'GET', path, what: `discover ${apiVersion}` });
      const names = new Set(list.resources.map((resource) => resource.name));
      return list.resources
        .filter((resource) => !resource.name.includes('/'))
        .map((resource) => ({
          group, version, kind: resource.kind, plural: resource.name, namespaced: resource.namespaced,
          hasStatusSubresource: names.has(`${resource.name}/status`),
        }));
    } catch (error) {
      if (error instanceof ApiError && error.isNotFound) return [];
      throw error;
    }
  }

  private preferredVersion(group: string): Promise<string> {
    if (group === '') return Promise.resolve('v1');
    let entry = this.preferred.get(group);
    if (!entry) {
      entry = this.client.request<ApiGroup>({ method: 'GET', path: `/apis/${group}`, what: `discover group ${group}` })
        .then((answer) => answer.preferredVersion?.version ?? answer.versions?.[0]?.version ?? 'v1');
      entry.catch(() => this.preferred.delete(group));
      this.preferred.set(group, entry);
    }
    return entry;
  }
}
