import { helmHookAnnotation, hookAnnotation } from '@tidemark/contracts';
import type { GitSource, ObjectChange, PollResult } from '@tidemark/git-source';

/**
 * changesWithHooks is a poll's changes by object key, with every sync hook of the polled revision
 * (objects annotated tidemark.dev/hook or helm.sh/hook) as changed when the poll changed anything: a hook runs again at every revision
 * that changes what its source applies, so such a poll routes every hook, changed or not. The
 * pipeline decides whether its run is new (its run id) or one it already ran.
 */
export async function changesWithHooks(source: Pick<GitSource, 'listObjects' | 'annotationOf'>, poll: Pick<PollResult, 'revision' | 'changes'>): Promise<Map<string, ObjectChange>> {
  const changes = new Map(poll.changes.map((change) => [change.objectKey, change]));
  if (changes.size === 0) return changes;
  for (const object of (await source.listObjects(poll.revision)).objects) {
    if (changes.has(object.objectKey)) continue;
    const hook = (await source.annotationOf(poll.revision, object.objectKey, hookAnnotation)) ?? (await source.annotationOf(poll.revision, object.objectKey, helmHookAnnotation));
    if (hook !== undefined) changes.set(object.objectKey, { objectKey: object.objectKey, change: 'changed', path: object.path, blobOid: object.blobOid });
  }
  return changes;
}
