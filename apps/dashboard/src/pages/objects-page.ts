import type { Facets, MatrixPage, MatrixRow } from '../view/object-matrix';
import { conditionFilters } from '../view/cell-state';
import type { ObjectsQuery } from '../api/schemas';
import { matrixHead, matrixRowHtml } from './matrix-rows';
import { html, type SafeHtml } from './html';

function options(values: readonly string[], selected: string | undefined, all: string): SafeHtml {
  return html`<option value="">${all}</option>${values.map((value) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${value}</option>`)}`;
}

function filterForm(query: ObjectsQuery, facets: Facets, clusters: readonly string[]): SafeHtml {
  return html`<form class="filters" method="get" action="/objects">
<label>Kind<select name="kind">${options(facets.kinds, query.kind, 'all kinds')}</select></label>
<label>Namespace<select name="namespace">${options(facets.namespaces, query.namespace, 'all namespaces')}</select></label>
<label>Cluster<select name="cluster">${options(clusters, query.cluster, 'all clusters')}</select></label>
<label>Condition<select name="condition">${options(conditionFilters, query.condition, 'any condition')}</select></label>
<label>Text<input type="search" name="q" value="${query.q ?? ''}" placeholder="name, key, path or a rendered object"></label>
${query.source ? html`<label>Source<select name="source">${options(facets.sources, query.source, 'all sources')}</select></label>` : facets.sources.length > 1 ? html`<label>Source<select name="source">${options(facets.sources, undefined, 'all sources')}</select></label>` : ''}
<input type="hidden" name="page" value="1"><button>Filter</button> <a href="/objects">Clear</a></form>`;
}

// A row object is kept until its object changes (RowMemo), so its markup is memoised on it, encoded.
// A CR's row carries one line about what it rendered; their rows load when asked (matrix-rows).
const rowMarkup = new WeakMap<MatrixRow, Buffer>();

function row(item: MatrixRow, clusters: readonly string[]): Buffer {
  let markup = rowMarkup.get(item);
  if (!markup) rowMarkup.set(item, (markup = Buffer.from(matrixRowHtml(item, clusters, true).value)));
  return markup;
}

function pageLink(query: ObjectsQuery, page: number, label: string): SafeHtml {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '' && name !== 'page') params.set(name, String(value));
  params.set('page', String(page));
  return html`<a href="/objects?${params.toString()}" rel="${label === 'Next' ? 'next' : 'prev'}">${label}</a>`;
}

function pager(query: ObjectsQuery, matrix: MatrixPage): SafeHtml {
  const first = matrix.total === 0 ? 0 : (matrix.page - 1) * matrix.pageSize + 1;
  const last = Math.min(matrix.total, matrix.page * matrix.pageSize);
  return html`<div class="pager"><span id="range">${first}–${last} of ${matrix.total}</span>
${matrix.page > 1 ? pageLink(query, matrix.page - 1, 'Previous') : ''} <span>page ${matrix.page} of ${matrix.pages}</span>
${matrix.page < matrix.pages ? pageLink(query, matrix.page + 1, 'Next') : ''}</div>`;
}

/**
 * objectsPage: filters, the object × cluster matrix, and pages, encoded as UTF-8, in chunks: the
 * rows are their memoised encodings, not copies; only the parts around them are rendered per call.
 * The layout copies the chunks into a page once (EncodedPages).
 */
export function objectsPage(query: ObjectsQuery, matrix: MatrixPage, facets: Facets, allClusters: readonly string[]): Buffer[] {
  // New objects are inserted live into #results (the filter form keeps its focus and input).
  const top = html`<h1>Objects</h1>${filterForm(query, facets, allClusters)}<p id="live-notice" class="muted" role="status" aria-live="polite"></p>
<div id="results">${pager(query, matrix)}`;
  const bottom = html`${matrix.pages > 1 ? pager(query, matrix) : ''}</div>`;
  if (matrix.rows.length === 0) return [Buffer.from(html`${top}<p class="muted">No object matches these filters.</p>${bottom}`.value)];
  const tableTop = html`<div class="scroll"><table id="matrix">${matrixHead(matrix.clusters)}
<tbody>`;
  return [Buffer.from(html`${top}${tableTop}`.value), ...matrix.rows.map((item) => row(item, matrix.clusters)), Buffer.from(html`</tbody></table></div>${bottom}`.value)];
}
