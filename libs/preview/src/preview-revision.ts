import { dryRunObject, type ClusterConnection } from '@tidemark/cluster';
import { helmHookAnnotation, hookAnnotation, isHookObject, isReadOnlyKey, isReconcileFailure, parseObjectKey, TerminalError, messageOf, type KubernetesManifest, type PreviewChange, type PreviewHook, type PreviewReport } from '@tidemark/contracts';
import { renderForPreview, type DesiredObject, type PreviewRenderDependencies } from '@tidemark/pipeline';
import { rulesAt, type ClusterTarget, type PlacementSource } from '@tidemark/placement';
import { blastRadius } from './blast-radius';
import { displayObject } from './display-object';
import { fieldChanges } from './field-changes';
import { inRunOrder, previewHook } from './preview-hooks';

/** PreviewSource is what a preview reads of Git at one revision (GitSource fits it). */
export interface PreviewSource extends PlacementSource {
  listObjects(revision: string): Promise<{ objects: Array<{ objectKey: string; path: string; blobOid: string }> }>;
  readObject(revision: string, objectKey: string, cluster?: string): Promise<{ object: KubernetesManifest; path: string; line: number; unit?: DesiredObject['unit'] } | undefined>;
  /** One annotation from the revision's index, without reading the object (GitSource has it); without it each object is read to find hooks. */
  annotationOf?(revision: string, objectKey: string, annotation: string): Promise<string | undefined>;
}

/** PreviewDependencies: the source at the base revision and at the ref, the clusters, and read-only pipeline parts. */
export interface PreviewDependencies {
  /** The configured source (its revision is the base). */
  base: PreviewSource;
  /** The same repository, following the previewed ref. */
  head: PreviewSource;
  clusters: readonly ClusterTarget[];
  /** The pipeline's read-only dependencies; `desired` is built here from `head`. */
  render: Omit<PreviewRenderDependencies, 'desired'>;
}

/** PreviewRequest names the source, the ref as asked, and the two commits to compare. */
export interface PreviewRequest {
  source: string;
  ref: string;
  baseRevision: string;
  revision: string;
  requestedAt: string;
}

/**
 * previewRevision says what merging a revision would do: for every object that differs from the
 * base revision, on every cluster placement sends it to, the pipeline's own fetch, validate and
 * render stages, then a server-side dry-run of each object against the live cluster. Objects gone
 * from Git, or no longer placed on a cluster, are listed as deleted where a status record proves
 * Tidemark applied them. Objects Tidemark reads but never applies (Placement, HealthRule) are not
 * listed: the same isReadOnlyKey keeps them out of reconcile jobs. Each object is dry-run as the
 * identity its reconcile would use on that cluster (its Placement rule's ServiceAccount at the
 * previewed revision, else the source's, else Tidemark's), and an identity the source may not use is
 * listed as refused without a request. A revision that changes anything lists the sync hooks it
 * would run, in their order, apart from the changes. Nothing is written to a cluster or to the status store.
 */
export async function previewRevision(request: PreviewRequest, deps: PreviewDependencies): Promise<PreviewReport> {
  const run = new PreviewRun(request, deps);
  const [base, head] = await Promise.all([deps.base.listObjects(request.baseRevision), deps.head.listObjects(request.revision)]);
  const baseObjects = base.objects.filter((object) => !isReadOnlyKey(object.objectKey));
  const headObjects = head.objects.filter((object) => !isReadOnlyKey(object.objectKey));
  const baseOids = new Map(baseObjects.map((object) => [object.objectKey, object.blobOid]));
  const headKeys = new Set(headObjects.map((object) => object.objectKey));
  for (const object of headObjects) {
    if (baseOids.get(object.objectKey) === object.blobOid) continue;
    await run.changed(object.objectKey, baseOids.has(object.objectKey));
  }
  for (const object of baseObjects) {
    if (!headKeys.has(object.objectKey)) await run.removed(object.objectKey, deps.clusters.map((cluster) => cluster.name), `removed from Git at ${request.revision.slice(0, 12)}`);
  }
  // A revision that changes what the source applies runs every hook of it again.
  if (run.anythingChanged()) for (const object of headObjects) await run.hook(object.objectKey);
  return run.report();
}

/** PreviewRun collects one preview's changes, cluster by cluster. */
class PreviewRun {
  private readonly changes: PreviewChange[] = [];
  private readonly hooks: PreviewHook[] = [];
  private touched = false;
  private readonly unreachable = new Map<string, string>();
  private readonly decryptedUnits = new Set<string>();
  private readonly rules: Map<string, ReturnType<typeof rulesAt>> = new Map();

  constructor(private readonly request: PreviewRequest, private readonly deps: PreviewDependencies) {}

  async changed(objectKey: string, existedBefore: boolean): Promise<void> {
    const { request, deps } = this;
    const now = await deps.head.readObject(request.revision, objectKey).catch(() => undefined);
    this.touched = true;
    // A hook is listed with the hooks (hook), not dry-run: what it applies is a run under a name of its own.
    if (now && isHookObject(now.object)) return;
    if (now?.unit?.decrypted) this.decryptedUnits.add(now.unit.folder);
    const targets = await this.targets(deps.head, request.revision, objectKey, now);
    for (const cluster of targets) await this.onCluster(cluster, () => this.preview(objectKey, cluster, now?.object.apiVersion ?? ''));
    if (!existedBefore) return;
    const before = await deps.base.readObject(request.baseRevision, objectKey).catch(() => undefined);
    const leaving = (await this.targets(deps.base, request.baseRevision, objectKey, before)).filter((cluster) => !targets.includes(cluster));
    await this.removed(objectKey, leaving, 'no longer placed on this cluster');
  }

  anythingChanged(): boolean {
    return this.touched;
  }

  /** hook lists the object, when it is a hook, on every cluster placement sends it to. */
  async hook(objectKey: string): Promise<void> {
    const { request, deps } = this;
    if (deps.head.annotationOf) {
      const annotated = (await deps.head.annotationOf(request.revision, objectKey, hookAnnotation)) ?? (await deps.head.annotationOf(request.revision, objectKey, helmHookAnnotation));
      if (annotated === undefined) return;
    }
    const found = await deps.head.readObject(request.revision, objectKey).catch(() => undefined);
    if (!found || !isHookObject(found.object)) return;
    for (const cluster of await this.targets(deps.head, request.revision, objectKey, found)) {
      const hook = previewHook(cluster, objectKey, found.object, found.path);
      if (hook) this.hooks.push(hook);
    }
  }

  async removed(objectKey: string, clusters: readonly string[], why: string): Promise<void> {
    this.touched = true;
    for (const cluster of clusters) {
      await this.onCluster(cluster, async () => {
        const record = await this.deps.render.statusStore.get(cluster, objectKey);
        if (!record?.lastAppliedRevision) return; // Never applied there: nothing to delete.
        const self = { apiVersion: record.apiVersion, kind: record.kind, namespace: record.namespace, name: record.name };
        for (const entry of [self, ...record.inventory]) this.changes.push({ cluster, objectKey, ...(record.path ? { path: record.path } : {}), ...entry, action: 'deleted', message: why });
      });
    }
  }

  report(): PreviewReport {
    const { request } = this;
    const unreachable = [...this.unreachable].map(([cluster, message]) => ({ cluster, message }));
    return {
      source: request.source, ref: request.ref, state: 'done', revision: request.revision, baseRevision: request.baseRevision,
      requestedAt: request.requestedAt, finishedAt: new Date().toISOString(),
      ...(unreachable.length > 0 ? { unreachable } : {}),
      ...(this.decryptedUnits.size > 0 ? { decryptedUnits: [...this.decryptedUnits].sort() } : {}),
      changes: this.changes, ...(this.hooks.length > 0 ? { hooks: inRunOrder(this.hooks) } : {}), blastRadius: blastRadius(this.changes),
    };
  }

  private async targets(source: PreviewSource, revision: string, objectKey: string, found: { object: KubernetesManifest; path: string } | undefined): Promise<string[]> {
    const { clusters } = this.deps;
    if (!found) return clusters.map((cluster) => cluster.name); // Broken in Git: validate says why, everywhere.
    return (await this.rulesAt(source, revision)).targets(found.object, found.path, clusters);
  }

  private rulesAt(source: PreviewSource, revision: string): ReturnType<typeof rulesAt> {
    let rules = this.rules.get(revision);
    if (!rules) this.rules.set(revision, (rules = rulesAt(source, revision)));
    return rules;
  }

  /** onCluster runs one cluster's part; a cluster that cannot be asked is reported, not fatal. */
  private async onCluster(cluster: string, work: () => Promise<void>): Promise<void> {
    if (this.unreachable.has(cluster)) return;
    try {
      await work();
    } catch (error) {
      this.unreachable.set(cluster, messageOf(error));
    }
  }

  private async preview(objectKey: string, cluster: string, apiVersion: string): Promise<void> {
    const { request, deps } = this;
    const head = deps.head;
    const desired = {
      readObject: async (_source: string, revision: string, key: string, target: string) => {
        const found = await head.readObject(revision, key, target);
        return found ? { object: found.object, path: found.path, line: found.line, ...(found.unit ? { unit: found.unit } : {}) } : undefined;
      },
      // The Placement rules of the previewed revision choose the identity, as they will once it is applied.
      // Without tenancyFor (the CLI's diff, as the kubeconfig's user) no identity is chosen, the rules' neither.
      ...(deps.render.tenancyFor ? { identityAt: async (_source: string, revision: string, path: string) => (await this.rulesAt(head, revision)).identityFor(path) } : {}),
    };
    const ref = parseObjectKey(objectKey);
    const base = { cluster, objectKey, apiVersion, kind: ref.kind, namespace: ref.namespace === '_' ? '' : ref.namespace, name: ref.name };
    let rendered;
    try {
      rendered = await renderForPreview({ source: request.source, revision: request.revision, cluster, objectKey }, { ...deps.render, desired });
    } catch (error) {
      if (error instanceof TerminalError || (isReconcileFailure(error) && error.category === 'invalid')) {
        this.changes.push({ ...base, action: 'invalid', message: error.message });
        return;
      }
      throw error;
    }
    const located = { ...(rendered.path ? { path: rendered.path } : {}), ...(rendered.line ? { line: rendered.line } : {}) };
    if (rendered.skipped) {
      this.changes.push({ ...base, ...located, action: 'skipped', message: rendered.skipped === 'suspended' ? 'suspended on this cluster: not applied until resumed' : 'not placed on this cluster' });
      return;
    }
    // The dry-runs run as the identity renderForPreview's fetch chose, which is the one reconcile uses.
    for (const object of rendered.objects) this.changes.push(await this.dryRun(rendered.connection, object, { cluster, objectKey, ...located }));
    await this.pruned(objectKey, cluster, rendered.objects, located);
  }

  private async dryRun(connection: ClusterConnection, object: KubernetesManifest, where: Pick<PreviewChange, 'cluster' | 'objectKey' | 'path' | 'line'>): Promise<PreviewChange> {
    const entry = await dryRunObject(connection, object);
    const identity = { apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name };
    if (entry.action === 'invalid') return { ...where, ...identity, action: 'invalid', message: entry.message };
    const live = displayObject(entry.live);
    if (entry.action === 'created') return { ...where, ...identity, action: 'created', desired: displayObject(entry.dryRun)! };
    const fields = entry.live && entry.action === 'configured' ? fieldChanges(entry.dryRun, entry.live, connection.fieldManager) : [];
    if (fields.length === 0) return { ...where, ...identity, action: 'unchanged' };
    return { ...where, ...identity, action: 'configured', fields, desired: displayObject(entry.dryRun)!, ...(live ? { live } : {}) };
  }

  /** pruned lists what a kind rendered last time (its inventory) and would no longer render. */
  private async pruned(objectKey: string, cluster: string, rendered: readonly KubernetesManifest[], located: Pick<PreviewChange, 'path' | 'line'>): Promise<void> {
    const record = await this.deps.render.statusStore.get(cluster, objectKey);
    const kept = new Set(rendered.map((object) => `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`));
    for (const entry of record?.inventory ?? []) {
      if (kept.has(`${entry.kind}/${entry.namespace}/${entry.name}`)) continue;
      this.changes.push({ cluster, objectKey, ...located, ...entry, action: 'deleted', message: `no longer rendered by ${record?.kind ?? ''} ${record?.name ?? ''}`.trim() });
    }
  }
}
