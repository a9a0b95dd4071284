import type { MatrixRow, RenderedCell, RenderedRow } from '../view/object-matrix';
import { summarizeRendered } from '../view/rendered-summary';
import { objectPath } from '../api/object-key-params';
import { cellHtml, stateBadge } from './cell';
import { html, type SafeHtml } from './html';

/** renderedPagePath is the page listing what a CR rendered; the matrix loads its rows from there. */
export function renderedPagePath(objectKey: string): string {
  return `/objects/rendered?parent=${encodeURIComponent(objectKey)}`;
}

/**
 * renderedToggle is a CR's line about what it rendered: how many objects, how many need a look,
 * and a link to their rows. The page script opens the rows under the CR's row in place; without
 * script the link opens them on a page of their own.
 */
function renderedToggle(item: MatrixRow): SafeHtml {
  const summary = summarizeRendered(item.rendered ?? []);
  if (summary.objects === 0) return html``;
  const issues = [summary.notReady > 0 ? `${summary.notReady} not ready` : '', summary.drifted > 0 ? `${summary.drifted} drifted` : ''].filter(Boolean).join(', ');
  return html`<br><a class="rendered-toggle" href="${renderedPagePath(item.objectKey)}" data-parent="${item.objectKey}">${summary.objects} rendered ${summary.objects === 1 ? 'object' : 'objects'}</a>${issues ? html` <span class="rendered-issues">(${issues})</span>` : ''}`;
}

/** matrixRowHtml is an object's row in the matrix; `withToggle` adds the line about what it rendered. */
export function matrixRowHtml(item: MatrixRow, clusters: readonly string[], withToggle: boolean): SafeHtml {
  return html`<tr data-object="${item.objectKey}"><td>${item.kind}</td><td>${item.namespace || html`<span class="muted">cluster-scoped</span>`}</td><td>${item.name}${withToggle ? renderedToggle(item) : ''}</td>
<td class="muted">${item.path ?? ''}</td>${clusters.map((cluster) => cellHtml(cluster, item.objectKey, item.cells[cluster]))}</tr>`;
}

const healthState: Record<RenderedCell['health'], string> = { Ready: 'Ready', Progressing: 'Reconciling', Failed: 'Failed', Unknown: 'Unknown' };

/** renderedRowHtml is an object a CR rendered, under the CR's row; its cells link to the CR's resource tree. */
export function renderedRowHtml(parent: MatrixRow, rendered: RenderedRow, clusters: readonly string[]): SafeHtml {
  return html`<tr class="rendered" data-parent="${parent.objectKey}"><td><span class="rendered-mark" aria-hidden="true">↳ </span>${rendered.kind}</td><td>${rendered.namespace || html`<span class="muted">cluster-scoped</span>`}</td><td>${rendered.name}</td>
<td class="muted">rendered by ${parent.kind} ${parent.name}</td>${clusters.map((cluster) => {
    const cell = rendered.cells[cluster];
    if (!cell) return html`<td class="cell empty"><span class="muted">—</span></td>`;
    return html`<td class="cell" data-state="${healthState[cell.health]}"><a href="/objects/${objectPath(cluster, parent.objectKey)}#tree-heading">${stateBadge(healthState[cell.health], cell.message)}${cell.drifted ? stateBadge('Drifted') : ''}</a></td>`;
  })}</tr>`;
}

/** matrixHead is the matrix's table head for these clusters. */
export function matrixHead(clusters: readonly string[]): SafeHtml {
  return html`<thead><tr><th>Kind</th><th>Namespace</th><th>Name</th><th>Path</th>${clusters.map((cluster) => html`<th>${cluster}</th>`)}</tr></thead>`;
}
