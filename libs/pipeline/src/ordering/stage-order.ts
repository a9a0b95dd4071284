import { NotReadyError, TerminalError, describeObject, parseObjectKey, type ObjectRef } from '@tidemark/contracts';
import { crdToken, describeCycle, formatDuration, objectToken, type Dependency, type OrderingNode, type RevisionOrdering } from '@tidemark/ordering';
import type { DependencyWaitRegistry, DesiredStateReader, PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { checkDependency, type DependencyRun, type DependencyStateDependencies, type Unmet } from './dependency-state';
import { healthWait, readHealthTimeout, type HealthTimeoutDependencies, type HealthTimeoutRun } from '../health/stage-health';

/** OrderRun is the part of the run the order stage reads. */
export type OrderRun = DependencyRun & HealthTimeoutRun & Pick<ReconcileRun, 'stage' | 'kindNotServed'>;

/** OrderDependencies is what the order stage reads: the revision's ordering, the wait registry, every source's declarations (cycles) and the health timeout. */
export type OrderDependencies = DependencyStateDependencies & HealthTimeoutDependencies & Pick<PipelineDependencies, 'ordering' | 'declarations' | 'now'> & {
  desired: Pick<DesiredStateReader, 'orderingAt'>;
};

/**
 * orderStage holds an object back until what it depends on is ready: its CRD served, its
 * Namespace, the objects its depends-on annotation names, and the lower sync wave of its source
 * revision. A waiting object registers to be woken by the dependency (its run finishing Ready, or
 * a watch) before it looks, then throws NotReadyError (Ready=False, DependencyNotReady): waiting,
 * never failed or pruned (DependencyFailed once the dependency failed or the wait outlasted the
 * health timeout). A cycle waits with DependencyCycle on every member; an unreadable annotation is
 * terminal, naming the file, the object and the annotation. `node` is what readOrdering read.
 */
export async function orderStage(run: OrderRun, deps: OrderDependencies, node: OrderingNode | undefined): Promise<void> {
  run.stage = 'order';
  refuseBadTimeout(run);
  const waits = deps.ordering;
  if (!waits || !run.desired) return;
  const recheckMs = deps.options?.dependencyRecheckMs ?? 60_000;
  if (node) await refuseBrokenOrder(run, node, waits, recheckMs);
  if (node) await refuseCrossSourceCycle(run, deps, node, waits, recheckMs);
  for (const dependency of dependenciesOf(run, node)) {
    if (!(await checkDependency(run, deps, dependency))) continue;
    // Register first, then look again: either this look sees it ready, or its wake sees us.
    await waits.register(run.job.cluster, tokenOf(run.ref, dependency), run.job);
    const unmet = await checkDependency(run, deps, dependency);
    if (unmet) throw waitFailure(run, deps, dependency, unmet, Math.min(recheckMs, unmet.recheckMs ?? recheckMs));
  }
}

/** readOrdering is the object's node in its source revision's ordering (read once per revision by the reader), if ordering is on. */
export async function readOrdering(run: OrderRun, deps: OrderDependencies): Promise<OrderingNode | undefined> {
  if (!deps.ordering || !run.desired) return undefined;
  const ordering = await deps.desired.orderingAt?.(run.job.source, run.job.revision, run.job.cluster);
  return ordering?.nodes.get(run.job.objectKey);
}

/**
 * waitFailure says why the object waits. Waiting is progress until the dependency fails (its health
 * check, or its own health timeout) or this object has waited past its health timeout: then it is
 * DependencyFailed, a failure naming the dependency and the wait. Either way it is woken the moment
 * the dependency is Ready.
 */
function waitFailure(run: OrderRun, deps: OrderDependencies, dependency: Dependency, unmet: Unmet, recheckMs: number): NotReadyError {
  const message = unmet.message.replace(/\.?$/, '.');
  const wait = healthWait(run, deps, deps.now?.() ?? new Date());
  if (!unmet.failed && !wait.timedOut) return new NotReadyError('DependencyNotReady', message, recheckMs);
  const cause = unmet.failed ? `${dependency.description} failed` : `waited ${wait.said}`;
  const next = `fix ${dependency.description}${dependency.reason === 'depends-on' ? ' or drop it from tidemark.dev/depends-on' : ''}; this object is applied the moment it is Ready`;
  return new NotReadyError('DependencyFailed', `${message} ${cause.charAt(0).toUpperCase()}${cause.slice(1)} (this object has waited ${formatDuration(wait.waitedMs)}): ${next}.`, recheckMs, { category: 'transient' });
}

/** refuseBadTimeout: an unreadable tidemark.dev/health-timeout is terminal, naming the file, the object and the annotation. */
function refuseBadTimeout(run: OrderRun): void {
  if (!run.desired) return;
  try {
    readHealthTimeout(run);
  } catch (error) {
    throw new TerminalError('InvalidHealthTimeout', `${where(run)}: ${(error as Error).message} Fix it in Git.`);
  }
}

/** refuseBrokenOrder: an unreadable annotation is terminal; a cycle waits on every member, woken when one changes. */
async function refuseBrokenOrder(run: OrderRun, node: OrderingNode, waits: DependencyWaitRegistry, recheckMs: number): Promise<void> {
  if (node.problems.length > 0) {
    throw new TerminalError('InvalidDependency', `${where(run)}: ${node.problems.join('; ')}. Fix it in Git.`);
  }
  if (!node.cycle) return;
  for (const member of node.cycle) if (member !== run.job.objectKey) await waits.register(run.job.cluster, objectToken(member), run.job);
  throw new NotReadyError('DependencyCycle', `${where(run)}: ${describeCycle(node.cycle)}; nothing in the cycle is applied until Git breaks it.`, recheckMs);
}

/**
 * refuseCrossSourceCycle: a cycle through another source's objects waits on every member too (each
 * member's run finds it), woken when one of them changes.
 */
async function refuseCrossSourceCycle(run: OrderRun, deps: OrderDependencies, node: OrderingNode, waits: DependencyWaitRegistry, recheckMs: number): Promise<void> {
  const cycle = await findCrossSourceCycle(run, deps, node);
  if (!cycle) return;
  for (const member of cycle) if (member.objectKey !== run.job.objectKey) await waits.register(run.job.cluster, objectToken(member.objectKey), run.job);
  throw new NotReadyError('DependencyCycle', `${where(run)}: ${describeCrossSourceCycle(cycle)}; nothing in the cycle is applied until Git breaks it.`, recheckMs);
}

/**
 * dependenciesOf lists what the object waits for, cheapest first. A custom resource whose kind is
 * not served waits for its CRD even when another source (or a person) brings it.
 */
function dependenciesOf(run: OrderRun, node: OrderingNode | undefined): Dependency[] {
  const dependencies = [...(node?.dependencies ?? [])];
  const crd = dependencies.findIndex((dependency) => dependency.reason === 'crd');
  if (!run.kindNotServed) {
    if (crd >= 0) dependencies.splice(crd, 1);
  } else if (crd < 0) {
    // Not declared in this revision: the CRD's name is not known, only the kind it must serve.
    dependencies.unshift({ objectKey: '', description: `the CRD of ${run.ref.kind}`, reason: 'crd' });
  }
  return dependencies;
}

function tokenOf(ref: ObjectRef, dependency: Dependency): string {
  return dependency.reason === 'crd' ? crdToken(ref.group, ref.kind) : objectToken(dependency.objectKey);
}

function where(run: OrderRun): string {
  return `${run.desired?.path ?? 'Git'}: ${describeObject(run.ref)}`;
}

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
export async function findCrossSourceCycle(run: OrderRun, deps: OrderDependencies, node: OrderingNode): Promise<CycleMember[] | undefined> {
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
async function successors(run: OrderRun, deps: OrderDependencies, member: CycleMember, node: OrderingNode | undefined): Promise<CycleMember[]> {
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
