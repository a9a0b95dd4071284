import { describeObject, formatObjectKey, type ObjectRef } from '@tidemark/contracts';

/** dependsOnAnnotation names the objects an object waits for, comma-separated. */
export const dependsOnAnnotation = 'tidemark.dev/depends-on';

/** DependencyRef is one object another object waits for: a Git object (of any source) or a live one. */
export interface DependencyRef {
  objectKey: string;
  /** Set when the reference names the source that declares it (`infra:apps/v1/Deployment/db/postgres`). */
  source?: string;
  /** `Kind namespace/name`, for messages. */
  description: string;
}

const versionPattern = /^v\d+((alpha|beta)\d+)?$/;
const namePattern = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const kindPattern = /^[A-Z][A-Za-z0-9]*$/;
const example = 'write [source:]group/version/Kind/namespace/name, e.g. apps/v1/Deployment/db/postgres, or group/Kind/name for a cluster-scoped object';

/**
 * parseDependencyRef reads one reference: `[source:]group[/version]/Kind/namespace/name`, or
 * `…/Kind/name` for a cluster-scoped object. The core group is written `v1` or `core`. The
 * version is accepted and dropped: an object is the same object under any version. Throws an
 * Error naming the reference and the expected form.
 */
export function parseDependencyRef(text: string): DependencyRef {
  const trimmed = text.trim();
  const { source, path } = splitSource(trimmed);
  const tokens = path.split('/');
  const kindAt = tokens.findIndex((token) => kindPattern.test(token));
  const prefix = kindAt < 0 ? [] : tokens.slice(0, kindAt);
  const rest = kindAt < 0 ? [] : tokens.slice(kindAt + 1);
  const group = groupOf(prefix);
  if (kindAt < 0 || group === undefined || rest.length < 1 || rest.length > 2 || rest.some((part) => !namePattern.test(part)) || (source !== undefined && !namePattern.test(source))) {
    throw new Error(`"${trimmed.slice(0, 200)}" is not a dependency: ${example}.`);
  }
  const ref: ObjectRef = { group, kind: tokens[kindAt]!, namespace: rest.length === 2 ? rest[0]! : '', name: rest[rest.length - 1]! };
  return { objectKey: formatObjectKey(ref), ...(source ? { source } : {}), description: describeObject(ref) };
}

/** splitSource separates `source:` from the object path; a colon after the first slash is no source. */
function splitSource(text: string): { source?: string; path: string } {
  const colon = text.indexOf(':');
  const slash = text.indexOf('/');
  if (colon <= 0 || (slash >= 0 && slash < colon)) return { path: text };
  return { source: text.slice(0, colon), path: text.slice(colon + 1) };
}

/** groupOf reads what stands before the kind: nothing, a version, a group, or a group and a version. */
function groupOf(prefix: readonly string[]): string | undefined {
  if (prefix.length === 0) return '';
  if (prefix.length === 1) return prefix[0] === 'core' || versionPattern.test(prefix[0]!) ? '' : groupName(prefix[0]!);
  if (prefix.length === 2 && versionPattern.test(prefix[1]!)) return prefix[0] === 'core' ? '' : groupName(prefix[0]!);
  return undefined;
}

function groupName(token: string): string | undefined {
  return namePattern.test(token) ? token : undefined;
}

/**
 * parseDependsOn reads an object's depends-on annotation (and a kind's `spec.dependsOn` list):
 * the references it names, or the problems, one sentence each.
 */
export function parseDependsOn(values: readonly string[]): { refs: DependencyRef[]; problems: string[] } {
  const refs: DependencyRef[] = [];
  const problems: string[] = [];
  for (const value of values) {
    for (const part of value.split(',')) {
      if (part.trim() === '') continue;
      try {
        const ref = parseDependencyRef(part);
        if (!refs.some((known) => known.objectKey === ref.objectKey)) refs.push(ref);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  return { refs, problems };
}
