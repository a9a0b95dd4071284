import type { MatrixRow } from '../view/object-matrix';
import { html, type SafeHtml } from './html';
import { matrixHead, matrixRowHtml, renderedRowHtml } from './matrix-rows';

/**
 * renderedPage lists the objects a CR rendered, with their state per cluster, under the CR's own
 * row. The objects page opens these rows in place under the CR (its script reads them from here);
 * without script, the CR's link opens this page.
 */
export function renderedPage(parent: MatrixRow, clusters: readonly string[]): SafeHtml {
  const rendered = parent.rendered ?? [];
  const table = rendered.length === 0
    ? html`<p class="muted">${parent.kind} ${parent.name} renders no objects other than itself.</p>`
    : html`<div class="scroll"><table id="matrix">${matrixHead(clusters)}
<tbody>${matrixRowHtml(parent, clusters, false)}${rendered.map((item) => renderedRowHtml(parent, item, clusters))}</tbody></table></div>`;
  return html`<h1>Objects rendered by ${parent.kind} ${parent.namespace ? `${parent.namespace}/` : ''}${parent.name}</h1>
<p><a href="/objects">All objects</a></p>${table}`;
}
