import { redactedText, type KubernetesManifest, type PreviewField } from '@tidemark/contracts';
import { computeDrift } from '@tidemark/drift';

/**
 * fieldChanges lists the fields an apply would change, from the server-side dry-run and the live
 * object, over the fields Tidemark's manager owns on either side: the fields it would set (with the
 * manager whose live value it overwrites, when that is not Tidemark) and the fields it would drop.
 * It is drift seen from the other side, so it shares computeDrift's rules: server defaults are
 * never a change, and Secret values (or an object annotated tidemark.dev/redact) are never copied.
 */
export function fieldChanges(dryRun: KubernetesManifest, live: KubernetesManifest, fieldManager: string): PreviewField[] {
  const now = new Date(0);
  const set = computeDrift({ desired: dryRun, live, fieldManager, now }).map((item): PreviewField => ({
    path: item.path,
    desired: item.desired,
    ...(item.live !== undefined ? { live: item.live } : {}),
    ...(item.manager !== fieldManager && item.manager !== 'unknown' && item.live !== undefined ? { overwrites: item.manager } : {}),
  }));
  const seen = new Set(set.map((field) => field.path));
  // Fields Tidemark owns now and the new revision no longer declares: the apply removes them.
  const dropped = computeDrift({ desired: live, live: dryRun, fieldManager, now })
    .filter((item) => !seen.has(item.path) && (item.live === undefined || item.live === 'removed'))
    .map((item): PreviewField => ({ path: item.path, live: item.desired }));
  const secret = dryRun.kind === 'Secret' && dryRun.apiVersion === 'v1';
  return [...set, ...dropped, ...(secret ? secretDataChanges(dryRun, live, seen) : [])].sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * secretDataChanges: a Secret written through stringData is owned as stringData but stored as
 * data, so the owned-field comparison cannot see it change. Its data keys are compared instead,
 * and only whether each changed is said.
 */
function secretDataChanges(dryRun: KubernetesManifest, live: KubernetesManifest, seen: ReadonlySet<string>): PreviewField[] {
  const wanted = dataOf(dryRun);
  const actual = dataOf(live);
  const keys = [...new Set([...Object.keys(wanted), ...Object.keys(actual)])];
  return keys
    .filter((key) => wanted[key] !== actual[key] && !seen.has(`/data/${escapePointer(key)}`))
    .map((key): PreviewField => ({
      path: `/data/${escapePointer(key)}`,
      ...(key in wanted ? { desired: redactedText } : {}),
      ...(key in actual ? { live: redactedText } : {}),
    }));
}

function dataOf(object: KubernetesManifest): Record<string, unknown> {
  const data = (object as { data?: unknown }).data;
  return data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
