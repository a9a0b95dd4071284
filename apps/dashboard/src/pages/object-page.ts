import type { Condition, DriftItem, InventoryEntry, ObjectStatus, ReconcileRecord } from '@tidemark/contracts';
import { mayAct, type Principal } from '../auth/principal';
import { objectPath } from '../api/object-key-params';
import { cellStateOf, isDrifted } from '../view/cell-state';
import { buildObjectDiffs, type DiffLine, type ObjectDiff } from '../view/drift-diff';
import { generationBadge, stateBadge } from './cell';
import { duration, jsonValue, shortRevision, timeAgo } from './format';
import { html, type SafeHtml } from './html';
import { treeSvg, treeTable } from './tree-svg';
import type { TreeNode } from '../view/resource-tree';
import type { DependencyGraph } from '../view/dependency-graph';
import { dependencyGraphHtml } from './dependency-graph-html';

export interface ObjectPageInput {
  status: ObjectStatus;
  history: ReconcileRecord[];
  tree: TreeNode;
  /** What the object waits on and what waits on it, on this cluster. */
  dependencies?: DependencyGraph;
  /** Runs per cluster over time and commit-to-live bars. */
  timeline?: SafeHtml;
  clusters: string[];
  principal: Principal | undefined;
  notice?: string;
  /** A trace UI's page of one trace, `{traceId}` standing for the id: each traced run links to its trace. @defaultValue none */
  traceUrl?: string;
}

// Stalled and Drifted are abnormal-true conditions: True is the bad news there, unlike Ready.
const abnormalTrue = new Set(['Stalled', 'Drifted']);

/** conditionClass colours a status by what it means for its type, not by True/False alone. */
function conditionClass(condition: Condition): string {
  if (condition.status === 'Unknown') return 'cond-unknown';
  if (condition.type === 'Reconciling') return condition.status === 'True' ? 'cond-busy' : 'cond-idle';
  const good = abnormalTrue.has(condition.type) ? condition.status === 'False' : condition.status === 'True';
  return good ? 'cond-good' : 'cond-bad';
}

function conditionRow(condition: Condition, generation: number | undefined): SafeHtml {
  const stale = generation !== undefined && condition.observedGeneration !== generation;
  return html`<tr data-condition="${condition.type}"><td>${condition.type}</td><td class="${conditionClass(condition)}">${condition.status}</td>
<td>${condition.reason}</td><td>${condition.message}</td><td>${timeAgo(condition.lastTransitionTime)}</td><td class="num${stale ? ' gen behind' : ''}">${condition.observedGeneration}</td></tr>`;
}

function driftTable(drift: readonly DriftItem[] | undefined): SafeHtml {
  if (!drift || drift.length === 0) return html`<p class="muted" id="drift-none">No drift recorded: the live object matches Git on the fields Tidemark owns.</p>`;
  return html`<div id="drift">${buildObjectDiffs(drift).map(sideBySide)}
<details id="drift-fields-details"><summary>The same drift as a table of fields</summary><div class="scroll"><table id="drift-fields"><tr><th scope="col">Object</th><th scope="col">Field</th><th scope="col">Desired (Git)</th><th scope="col">Live (cluster)</th><th scope="col">Written by</th><th scope="col">Detected</th></tr>
${drift.map((item) => html`<tr data-path="${item.path}"><td class="object">${item.object ?? 'this object'}</td><td><code>${item.path}</code></td><td><pre class="desired">${jsonValue(item.desired)}</pre></td><td><pre class="live">${jsonValue(item.live)}</pre></td><td>${item.manager}</td><td>${timeAgo(item.detectedAt)}</td></tr>`)}</table></div></details></div>`;
}

/** sideBySide shows one drifted object's fields as YAML, Git on the left and the cluster on the right. */
function sideBySide(diff: ObjectDiff): SafeHtml {
  const fields = new Set(diff.lines.filter((line) => line.changed).map((line) => line.path)).size;
  let previousPath: string | undefined;
  const rows = diff.lines.map((line) => {
    const first = line.changed && line.path !== previousPath;
    previousPath = line.path;
    return diffRow(line, first);
  });
  return html`<figure class="diff" data-object="${diff.object ?? ''}"><figcaption><strong>${diff.object ?? 'This object'}</strong>: ${fields} field${fields === 1 ? '' : 's'} drifted, detected ${timeAgo(diff.detectedAt)}</figcaption>
<div class="scroll"><table class="diff"><thead><tr><th scope="col">Desired (Git)</th><th scope="col">Live (cluster)</th><th scope="col">Written by</th></tr></thead><tbody>${rows}</tbody></table></div></figure>`;
}

function diffRow(line: DiffLine, firstOfField: boolean): SafeHtml {
  const indent = '  '.repeat(line.depth);
  if (!line.changed) return html`<tr class="context"><td><span class="mark" aria-hidden="true"> </span><code>${indent}${line.desired}</code></td><td><span class="mark" aria-hidden="true"> </span><code>${indent}${line.live}</code></td><td></td></tr>`;
  const title = `${line.path} — live value written by ${line.manager}`;
  return html`<tr class="changed" data-path="${line.path}" title="${title}"><td class="del"><span class="mark" aria-hidden="true">−</span><code class="desired">${indent}${line.desired}</code></td>
<td class="ins"><span class="mark" aria-hidden="true">+</span><code class="live">${indent}${line.live}</code></td><td class="manager">${firstOfField ? line.manager : ''}</td></tr>`;
}

function inventoryTable(inventory: readonly InventoryEntry[]): SafeHtml {
  if (inventory.length === 0) return html`<p class="muted">No owned objects.</p>`;
  return html`<table id="inventory"><tr><th>API version</th><th>Kind</th><th>Namespace</th><th>Name</th></tr>
${inventory.map((entry) => html`<tr><td>${entry.apiVersion}</td><td>${entry.kind}</td><td>${entry.namespace || '—'}</td><td>${entry.name}</td></tr>`)}</table>`;
}

/** changesText names only what an apply changed, e.g. "1 configured, 2 unchanged". */
function changesText(changes: ReconcileRecord['changes']): string {
  if (!changes) return '';
  const parts = (['created', 'configured', 'deleted', 'unchanged'] as const).filter((what) => changes[what] > 0).map((what) => `${changes[what]} ${what}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

/**
 * traceLink links a run to its trace in the configured trace UI. The id comes from Redis, so only
 * 32 lowercase hex digits make a link.
 */
export function traceLink(record: ReconcileRecord, traceUrl: string | undefined): SafeHtml | string {
  if (!traceUrl || typeof record.traceId !== 'string' || !/^[0-9a-f]{32}$/.test(record.traceId)) return '';
  return html`<a class="trace" href="${traceUrl.replaceAll('{traceId}', record.traceId)}" rel="noreferrer">trace</a>`;
}

function historyTable(history: readonly ReconcileRecord[], traceUrl: string | undefined): SafeHtml {
  if (history.length === 0) return html`<p class="muted">No reconcile recorded yet.</p>`;
  return html`<table id="history"><tr><th>Started</th><th>Revision</th><th>Result</th><th class="num">Duration</th><th>Stage</th><th>Message</th><th>Changes</th>${traceUrl ? html`<th>Trace</th>` : ''}</tr>
${history.map((record) => html`<tr><td>${timeAgo(record.startedAt)}${record.repeats ? html` <span class="repeats" title="The same outcome ${record.repeats} times in a row, changing nothing; the last one ${record.lastAt ?? ''}">×${record.repeats}, last ${timeAgo(record.lastAt)}</span>` : ''}</td><td>${shortRevision(record.revision)}</td><td class="result-${record.result}">${record.result}</td>
<td class="num">${duration(record.durationMs)}</td><td>${record.stage ?? ''}</td><td class="${record.result === 'failed' || record.result === 'stalled' ? 'error' : ''}">${record.message ?? ''}</td>
<td>${changesText(record.changes)}</td>${traceUrl ? html`<td>${traceLink(record, traceUrl)}</td>` : ''}</tr>`)}</table>`;
}

function actionForm(path: string, verb: string, label: string, principal: Principal | undefined): SafeHtml {
  return html`<form method="post" action="/objects/${path}/${verb}" class="inline"><input type="hidden" name="_csrf" value="${principal?.csrf ?? ''}"><button data-action="${verb}">${label}</button></form>`;
}

function actions(status: ObjectStatus, principal: Principal | undefined): SafeHtml {
  const role = principal?.role ?? 'viewer';
  if (!mayAct(principal)) return html`<p class="muted" id="actions-denied">Actions need the operator role; you are signed in as a ${role}.</p>`;
  const path = objectPath(status.cluster, status.objectKey);
  return html`<div class="actions" id="actions">${actionForm(path, 'reconcile', 'Reconcile now', principal)}
${status.suspended ? actionForm(path, 'resume', 'Resume', principal) : actionForm(path, 'suspend', 'Suspend', principal)}
${actionForm(path, 'retry', 'Retry if failed', principal)}</div>`;
}

/** renderUnitHtml says which render unit made the object and, per cluster, which values this cluster got. */
function renderUnitHtml(status: ObjectStatus): SafeHtml {
  const unit = status.renderUnit;
  if (!unit) return html``;
  const values = Object.entries(unit.clusterValues ?? {});
  return html`<dt>Rendered by</dt><dd id="render-unit">${unit.renderer} from <code>${unit.folder}</code></dd>${values.length > 0 ? html`<dt>Cluster values</dt><dd id="cluster-values">${values.map(([name, value]) => html`<code>\${cluster.${name}}</code> = <code>${value}</code> `)}</dd>` : ''}`;
}

function facts(status: ObjectStatus): SafeHtml {
  return html`<dl class="facts" id="facts"><dt>Kind</dt><dd>${status.apiVersion} ${status.kind}</dd><dt>Namespace</dt><dd>${status.namespace || 'cluster-scoped'}</dd>
<dt>Source</dt><dd>${status.source}</dd><dt>Path in Git</dt><dd><code>${status.path ?? 'unknown'}${status.line ? `:${status.line}` : ''}</code></dd>${renderUnitHtml(status)}
<dt>Applied revision</dt><dd>${shortRevision(status.lastAppliedRevision)}</dd><dt>Attempted revision</dt><dd>${shortRevision(status.lastAttemptedRevision)}</dd>
<dt>Generation</dt><dd id="generation">${generationFacts(status)}</dd>
<dt>Updated</dt><dd>${timeAgo(status.updatedAt)}</dd></dl>`;
}

/**
 * generationFacts shows generation / observedGeneration where the kind has them. ConfigMaps,
 * Secrets and other objects without a spec have no metadata.generation: a dash says so.
 */
function generationFacts(status: ObjectStatus): SafeHtml {
  const { generation, observedGeneration } = status;
  if (generation === undefined && observedGeneration === undefined) {
    return html`<span title="The API server keeps metadata.generation only for objects with a spec; health is read from the object itself.">— <span class="muted">(a ${status.kind} has no generation)</span></span>`;
  }
  const behind = generation !== observedGeneration;
  return html`generation ${generation ?? '—'} / observedGeneration ${observedGeneration ?? '—'} ${generationBadge(generation, observedGeneration)}${behind ? html` <span class="gen behind">the latest spec is not reconciled yet</span>` : ''}`;
}

function kindStatusTable(kindStatus: Record<string, unknown> | undefined): SafeHtml {
  const entries = Object.entries(kindStatus ?? {});
  if (entries.length === 0) return html``;
  return html`<h2>Kind status</h2><table id="kind-status">${entries.map(([field, value]) => html`<tr><th>${field}</th><td><pre>${jsonValue(value)}</pre></td></tr>`)}</table>`;
}

/** failureDetail shows what kind of failure the last run had, and the API server's raw words. */
function failureDetail(status: ObjectStatus): SafeHtml {
  const failure = status.failure;
  if (!failure) return html``;
  return html`<h2>Last failure</h2><dl class="facts" id="failure"><dt>Category</dt><dd data-category="${failure.category}">${failure.category}</dd><dt>Code</dt><dd>${failure.code}</dd></dl>
${failure.detail ? html`<details id="failure-detail"><summary>The API server's message, as it was sent</summary><pre>${failure.detail}</pre></details>` : ''}`;
}

function resourceTree(tree: TreeNode): SafeHtml {
  if (tree.children.length === 0 && tree.sync !== 'Drifted' && tree.kind !== 'WebApp') {
    return html`<p class="muted" id="tree-none">Nothing under this object yet: Tidemark has recorded no ReplicaSets, Pods or rendered objects for it.</p>${treeTable(tree)}`;
  }
  return html`${treeSvg(tree)}<p class="muted">Select a box to jump to its row; the table is the same tree as text.</p>${treeTable(tree)}`;
}

/** objectPage: everything known about one object on one cluster. */
export function objectPage(input: ObjectPageInput): SafeHtml {
  const { status } = input;
  const state = cellStateOf(status);
  const others = input.clusters.filter((cluster) => cluster !== status.cluster);
  return html`${input.notice ? html`<p class="notice" id="notice">${input.notice}</p>` : ''}
<h1>${status.kind} ${status.namespace ? `${status.namespace}/` : ''}${status.name} <small class="muted">on ${status.cluster}</small></h1>
<p id="state">${stateBadge(state)}${isDrifted(status) ? stateBadge('Drifted') : ''}${status.suspended ? stateBadge('Suspended') : ''}
${others.length > 0 ? html` · also on ${others.map((cluster) => html`<a href="/objects/${objectPath(cluster, status.objectKey)}">${cluster}</a> `)}` : ''}</p>
${actions(status, input.principal)}
<h2 id="tree-heading">Resource tree</h2>${resourceTree(input.tree)}
${facts(status)}
${input.dependencies ? html`<h2 id="dependencies-heading">Dependencies</h2>${dependencyGraphHtml(status.cluster, input.dependencies)}` : ''}
${status.warnings?.length ? html`<h2>Warnings</h2><ul>${status.warnings.map((warning) => html`<li>${warning}</li>`)}</ul>` : ''}
<h2>Conditions</h2>${status.conditions.length === 0 ? html`<p class="muted">No conditions yet.</p>` : html`<table id="conditions"><tr><th>Type</th><th>Status</th><th>Reason</th><th>Message</th><th>Changed</th><th class="num">Observed gen.</th></tr>${status.conditions.map((condition) => conditionRow(condition, status.generation))}</table>`}
${failureDetail(status)}${kindStatusTable(status.kindStatus)}
<h2>Drift</h2>${driftTable(status.drift)}
<h2>Inventory</h2>${inventoryTable(status.inventory)}
${input.timeline ?? ''}
<h2>Reconcile history on ${status.cluster}</h2>${historyTable(input.history, input.traceUrl)}`;
}
