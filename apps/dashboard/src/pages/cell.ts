import type { CellSummary } from '../view/cell-state';
import { objectPath } from '../api/object-key-params';
import { html, type SafeHtml } from './html';

/** cellId names a matrix cell; live updates find cells by it. */
export function cellId(cluster: string, objectKey: string): string {
  return `${cluster}|${objectKey}`;
}

export function stateBadge(state: string, title?: string): SafeHtml {
  return html`<span class="badge state-${state.toLowerCase()}" title="${title ?? state}">${state}</span>`;
}

/** generationText shows generation/observedGeneration, flagged when they differ. */
export function generationBadge(generation: number | undefined, observed: number | undefined): SafeHtml {
  if (generation === undefined && observed === undefined) return html``;
  const behind = generation !== observed;
  return html`<span class="gen${behind ? ' behind' : ''}" title="generation / observedGeneration">g${generation ?? '—'}/o${observed ?? '—'}</span>`;
}

// A summary object is replaced on every write, so markup memoised per object never goes stale.
const rendered = new WeakMap<CellSummary, SafeHtml>();

/** cellHtml renders one matrix cell, the same markup for the page and for live updates. */
export function cellHtml(cluster: string, objectKey: string, cell: CellSummary | undefined): SafeHtml {
  if (!cell) return html`<td class="cell empty" data-cell="${cellId(cluster, objectKey)}"><span class="muted">—</span></td>`;
  let markup = rendered.get(cell);
  if (!markup) {
    markup = renderCell(cellId(cluster, objectKey), cluster, objectKey, cell);
    rendered.set(cell, markup);
  }
  return markup;
}

function renderCell(id: string, cluster: string, objectKey: string, cell: CellSummary): SafeHtml {
  return html`<td class="cell" data-cell="${id}" data-state="${cell.state}"><a href="/objects/${objectPath(cluster, objectKey)}">${stateBadge(cell.state, cell.reason)}${cell.drifted ? stateBadge('Drifted') : ''}${cell.suspended ? stateBadge('Suspended') : ''}</a> ${generationBadge(cell.generation, cell.observedGeneration)}</td>`;
}
