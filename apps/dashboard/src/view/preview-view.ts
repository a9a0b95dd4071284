import { isRedactedObject, type PreviewAction, type PreviewChange, type PreviewField, type PreviewReport } from '@tidemark/contracts';
import { buildObjectDiffs, type DiffLine } from './drift-diff';

/** PreviewObject is one Git object of a preview with what merging would do to it on each cluster. */
export interface PreviewObject {
  objectKey: string;
  path?: string;
  line?: number;
  changes: PreviewChangeView[];
}

/** PreviewChangeView is one object on one cluster, ready to show: values of hidden objects never reach it. */
export interface PreviewChangeView extends Pick<PreviewChange, 'cluster' | 'apiVersion' | 'kind' | 'namespace' | 'name' | 'action' | 'message'> {
  /** A Secret, or an object annotated tidemark.dev/redact: only which fields change is shown. */
  hidden: boolean;
  /** Field paths that change (hidden objects: the only thing shown of them). */
  fields: Array<{ path: string; change: 'added' | 'changed' | 'removed'; overwrites?: string }>;
  /** Side by side, live left and the previewed ref right (absent for hidden objects). */
  lines: DiffLine[];
}

/** Order of the actions on the page: what needs a look first. */
export const previewActionOrder: readonly PreviewAction[] = ['invalid', 'deleted', 'created', 'configured', 'skipped', 'unchanged'];

/** isPreviewReport checks the shape of a record read from Redis before a page relies on it. */
export function isPreviewReport(value: unknown): value is PreviewReport {
  if (!value || typeof value !== 'object') return false;
  const report = value as Partial<PreviewReport>;
  return typeof report.source === 'string' && typeof report.ref === 'string' && typeof report.state === 'string' &&
    typeof report.requestedAt === 'string' && Array.isArray(report.changes) && report.changes.every(isChange);
}

function isChange(value: unknown): value is PreviewChange {
  if (!value || typeof value !== 'object') return false;
  const change = value as Partial<PreviewChange>;
  return ['cluster', 'objectKey', 'apiVersion', 'kind', 'namespace', 'name', 'action'].every((field) => typeof change[field as keyof PreviewChange] === 'string') &&
    (change.fields === undefined || (Array.isArray(change.fields) && change.fields.every((field) => typeof field?.path === 'string')));
}

/** isHidden: a Secret's values, and those of an object that opts into redaction, are never shown. */
function isHidden(change: PreviewChange): boolean {
  const { apiVersion, kind } = change;
  return isRedactedObject({ apiVersion, kind }) || [change.desired, change.live].some((object) => isRedactedObject({ apiVersion, kind, metadata: { annotations: annotationsOf(object) } }));
}

function annotationsOf(object: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const metadata = object?.metadata;
  if (!metadata || typeof metadata !== 'object') return undefined;
  const annotations = (metadata as { annotations?: unknown }).annotations;
  return annotations && typeof annotations === 'object' ? (annotations as Record<string, unknown>) : undefined;
}

function fieldChange(field: PreviewField): 'added' | 'changed' | 'removed' {
  if (field.live === undefined) return 'added';
  return field.desired === undefined ? 'removed' : 'changed';
}

/**
 * changeLines is the side-by-side view of one change: the changed fields with their parent keys for
 * a configured object, the whole object on one side for a created or deleted one.
 */
function changeLines(change: PreviewChange): DiffLine[] {
  if (change.action === 'created' && change.desired) return wholeObject(change.desired, 'desired');
  if (change.action === 'deleted' && change.live) return wholeObject(change.live, 'live');
  const fields = change.fields ?? [];
  if (fields.length === 0) return [];
  // The drift view's layout, with the manager whose value the apply would overwrite.
  const [diff] = buildObjectDiffs(fields.map((field) => ({ path: field.path, desired: field.desired, live: field.live, manager: field.overwrites ?? '', detectedAt: '' })));
  return diff?.lines ?? [];
}

function wholeObject(object: Record<string, unknown>, side: 'desired' | 'live'): DiffLine[] {
  const [diff] = buildObjectDiffs(Object.entries(object).map(([key, value]) => ({ path: `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, desired: side === 'desired' ? value : undefined, live: side === 'live' ? value : undefined, manager: '', detectedAt: '' })));
  // The side the object is not on stays empty rather than saying "(absent)" on every line.
  return (diff?.lines ?? []).map((line) => ({ ...line, [side === 'desired' ? 'live' : 'desired']: '' }));
}

/** viewOfChange keeps what a page may show of one change. */
export function viewOfChange(change: PreviewChange): PreviewChangeView {
  const hidden = isHidden(change);
  const view: PreviewChangeView = {
    cluster: change.cluster, apiVersion: change.apiVersion, kind: change.kind, namespace: change.namespace, name: change.name, action: change.action, hidden,
    fields: (change.fields ?? []).map((field) => ({ path: field.path, change: fieldChange(field), ...(field.overwrites && !hidden ? { overwrites: field.overwrites } : {}) })),
    lines: hidden ? [] : changeLines(change),
  };
  if (change.message) view.message = change.message;
  return view;
}

/** previewObjects groups a report's changes by Git object, in file order, each object's changes by cluster and action. */
export function previewObjects(report: PreviewReport): PreviewObject[] {
  const byKey = new Map<string, PreviewObject>();
  for (const change of report.changes) {
    let group = byKey.get(change.objectKey);
    if (!group) {
      byKey.set(change.objectKey, (group = { objectKey: change.objectKey, changes: [] }));
      if (change.path) group.path = change.path;
      if (change.line !== undefined) group.line = change.line;
    }
    group.changes.push(viewOfChange(change));
  }
  const rank = (action: PreviewAction) => previewActionOrder.indexOf(action);
  for (const group of byKey.values()) {
    group.changes.sort((a, b) => a.cluster.localeCompare(b.cluster) || rank(a.action) - rank(b.action) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  }
  return [...byKey.values()].sort((a, b) => (a.path ?? '').localeCompare(b.path ?? '') || a.objectKey.localeCompare(b.objectKey));
}
