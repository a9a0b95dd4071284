import { objectPath } from '../api/object-key-params';
import type { DependencyGraph, DependencyNode } from '../view/dependency-graph';
import { stateBadge } from './cell';
import { html, type SafeHtml } from './html';

const reasonText: Record<DependencyNode['reason'], string> = {
  'depends-on': 'tidemark.dev/depends-on',
  'sync-wave': 'sync wave',
  namespace: 'its Namespace',
  crd: 'its CRD',
  hook: 'a sync hook',
};

function relation(node: DependencyNode): string {
  const reason = node.reason === 'sync-wave' ? `sync wave ${node.wave ?? 0}` : reasonText[node.reason];
  return node.source ? `${reason}, from source ${node.source}` : reason;
}

/** nodeHtml is one object of the graph: its state, a link when Tidemark has a record of it, why it is in the graph and why it holds things back. */
function nodeHtml(cluster: string, node: DependencyNode): SafeHtml {
  const name = node.state ? html`<a href="/objects/${objectPath(cluster, node.objectKey)}">${node.description}</a>` : html`<span>${node.description}</span>`;
  const state = node.state ? stateBadge(node.state) : html`<span class="badge state-unknown" title="No Tidemark record on this cluster: a live object, or not reconciled yet">no record</span>`;
  return html`<li data-object="${node.objectKey}" data-state="${node.state ?? 'none'}">${state} ${name} <span class="muted">(${relation(node)})</span>${node.repeated ? html` <span class="error" data-cycle="true">already above: a cycle</span>` : ''}
${node.why ? html`<div class="why">${node.why}</div>` : ''}${listHtml(cluster, node.children, node.more)}</li>`;
}

function listHtml(cluster: string, nodes: readonly DependencyNode[], more: number): SafeHtml {
  if (nodes.length === 0 && more === 0) return html``;
  return html`<ul class="deps">${nodes.map((node) => nodeHtml(cluster, node))}${more > 0 ? html`<li class="muted" data-more="${more}">and ${more} more</li>` : ''}</ul>`;
}

/** dependencyGraphHtml shows who the object waits on (and they on whom) and who waits on it, each with its state and why. */
export function dependencyGraphHtml(cluster: string, graph: DependencyGraph): SafeHtml {
  const { waitsOn, waitedOnBy, more, waiting } = graph;
  if (waitsOn.length === 0 && waitedOnBy.length === 0) {
    return html`<p class="muted" id="dependencies-none">This object waits on nothing and nothing waits on it (tidemark.dev/depends-on, sync waves, its CRD or Namespace from the same revision).</p>`;
  }
  return html`<div id="dependencies">${waiting ? html`<p class="error" id="dependencies-waiting">${waiting}</p>` : ''}
<h3>Waits on</h3>${waitsOn.length > 0 ? html`<div id="waits-on">${listHtml(cluster, waitsOn, more)}</div>` : html`<p class="muted">Nothing.</p>`}
<h3>Waited on by</h3>${waitedOnBy.length > 0 ? html`<div id="waited-on-by">${listHtml(cluster, waitedOnBy, 0)}</div>` : html`<p class="muted">Nothing.</p>`}</div>`;
}
