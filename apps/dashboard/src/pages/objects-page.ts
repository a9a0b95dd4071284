import type { Facets, MatrixPage, MatrixRow } from '../view/object-matrix';
import { conditionFilters } from '../view/cell-state';
import type { ObjectsQuery } from '../api/schemas';
import { cellHtml } from './cell';
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
<label>Text<input type="search" name="q" value="${query.q ?? ''}" placeholder="name, key or path"></label>
<input type="hidden" name="page" value="1"><button>Filter</button> <a href="/objects">Clear</a></form>`;
}

function row(item: MatrixRow, clusters: readonly string[]): SafeHtml {
  return html`<tr data-object="${item.objectKey}"><td>${item.kind}</td><td>${item.namespace || html`<span class="muted">cluster-scoped</span>`}</td><td>${item.name}</td>
<td class="muted">${item.path ?? ''}</td>${clusters.map((cluster) => cellHtml(cluster, item.objectKey, item.cells[cluster]))}</tr>`;
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

/** objectsPage: filters, the object × cluster matrix, and pages. */
export function objectsPage(query: ObjectsQuery, matrix: MatrixPage, facets: Facets, allClusters: readonly string[]): SafeHtml {
  const body = matrix.rows.length === 0
    ? html`<p class="muted">No object matches these filters.</p>`
    : html`<table id="matrix"><thead><tr><th>Kind</th><th>Namespace</th><th>Name</th><th>Path</th>${matrix.clusters.map((cluster) => html`<th>${cluster}</th>`)}</tr></thead>
<tbody>${matrix.rows.map((item) => row(item, matrix.clusters))}</tbody></table>`;
  return html`<h1>Objects</h1><p id="live-notice" class="notice" hidden>New objects arrived since this page was loaded. <a href="">Reload the list</a> to see them.</p>${filterForm(query, facets, allClusters)}${pager(query, matrix)}${body}${matrix.pages > 1 ? pager(query, matrix) : ''}`;
}
