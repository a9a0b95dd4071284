import { describeObject, parseObjectKey } from '@tidemark/contracts';
import type { OrderingNode, RevisionOrdering } from '@tidemark/ordering';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/** CycleMember is one Git object of a dependency cycle: the source that declares it, at the revision it applies now. */
export interface CycleMember {
  source: string;
  revision: string;
  objectKey: string;
}

/**
 * How many objects one walk looks at, at most. A cycle longer than this is not found: each of its
 * members then waits, saying for what, as before.
 */
const walkLimit = 256;

/**
 * findCrossSourceCycle follows what the run's object waits for, through its own revision's ordering
 * and, for a depends-on reference to another source's object, through that source's ordering at the
 * revision it applies now (the declaration index), until it comes back to the run's object. It
 * returns the cycle's members (sorted, so every member names them alike), or undefined. A cycle
 * within one revision is found by buildRevisionOrdering already; a member whose own references stay
 * inside its revision finds the cycle too, through them.
 */
export async function findCrossSourceCycle(run: ReconcileRun, deps: PipelineDependencies, node: OrderingNode): Promise<CycleMember[] | undefined> {
  if (!deps.declarations || !deps.desired.orderingAt || node.dependencies.length === 0) return undefined;
  const start: CycleMember = { source: run.job.source, revision: run.job.revision, objectKey: run.job.objectKey };
  const orderings = new Map<string, Promise<RevisionOrdering | undefined>>();
  const orderingOf = (member: CycleMember) => {
    const key = `${member.source}@${member.revision}`;
    if (!orderings.has(key)) orderings.set(key, deps.desired.orderingAt!(member.source, member.revision, run.job.cluster).catch(() => undefined));
    return orderings.get(key)!;
  };
  const parents = new Map<string, CycleMember | undefined>([[idOf(start), undefined]]);
  const queue: CycleMember[] = [start];
  while (queue.length > 0 && parents.size <= walkLimit) {
    const member = queue.shift()!;
    const found = member === start ? node : (await orderingOf(member))?.nodes.get(member.objectKey);
    for (const next of await successors(run, deps, member, found)) {
      if (idOf(next) === idOf(start)) return sorted(pathTo(member, parents));
      if (parents.has(idOf(next))) continue;
      parents.set(idOf(next), member);
      queue.push(next);
    }
  }
  return undefined;
}

/** successors are the Git objects a member waits for: in its revision, and another source's declarations of what it names. */
async function successors(run: ReconcileRun, deps: PipelineDependencies, member: CycleMember, node: OrderingNode | undefined): Promise<CycleMember[]> {
  const next: CycleMember[] = [];
  for (const dependency of node?.dependencies ?? []) {
    if (dependency.specHash !== undefined) {
      next.push({ ...member, objectKey: dependency.objectKey });
      continue;
    }
    if (dependency.reason !== 'depends-on') continue;
    const pinned = { source: run.job.source, revision: run.job.revision };
    const declarations = await deps.declarations!.named(run.job.cluster, parseObjectKey(dependency.objectKey).name, pinned);
    for (const declaration of declarations) {
      if (declaration.objectKey !== dependency.objectKey || declaration.source === member.source) continue;
      if (dependency.source !== undefined && declaration.source !== dependency.source) continue;
      next.push({ source: declaration.source, revision: declaration.revision, objectKey: declaration.objectKey });
    }
  }
  return next;
}

function pathTo(last: CycleMember, parents: ReadonlyMap<string, CycleMember | undefined>): CycleMember[] {
  const path: CycleMember[] = [];
  for (let member: CycleMember | undefined = last; member; member = parents.get(idOf(member))) path.push(member);
  return path;
}

function idOf(member: CycleMember): string {
  return `${member.source}:${member.objectKey}`;
}

function sorted(members: CycleMember[]): CycleMember[] {
  return members.sort((a, b) => idOf(a).localeCompare(idOf(b)));
}

/** describeCrossSourceCycle names a cycle's members with their sources, for a message. */
export function describeCrossSourceCycle(members: readonly CycleMember[]): string {
  return `${members.map((member) => `${describeObject(parseObjectKey(member.objectKey))} (source ${member.source})`).join(', ')} depend on each other across sources`;
}
