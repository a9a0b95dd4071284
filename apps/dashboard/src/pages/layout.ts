import type { Principal } from '../auth/principal';
import { html, raw, type SafeHtml } from './html';

export interface LayoutOptions {
  title: string;
  principal?: Principal;
  /** Which live behaviour the page script applies: patch cells, or refresh the main part. */
  live?: 'cells' | 'refresh' | 'object';
  /** For live 'object': the cell id whose changes refresh the page. */
  liveKey?: string;
  /** For live 'object': the cluster and owner uids whose live children (Pods, ReplicaSets) the page draws; a change under one redraws it. */
  liveTree?: { cluster: string; ownerUids: readonly string[] };
  nav?: 'overview' | 'objects' | 'sources' | 'previews' | 'clusters' | 'rollouts' | 'queue' | 'prunes' | 'audit';
}

const links = [['overview', '/', 'Overview'], ['objects', '/objects', 'Objects'], ['sources', '/sources', 'Sources'], ['previews', '/previews', 'Previews'], ['clusters', '/clusters', 'Clusters'], ['rollouts', '/rollouts', 'Rollouts'], ['queue', '/queue', 'Queue'], ['prunes', '/prunes', 'Prunes'], ['audit', '/audit', 'Audit']] as const;

/** layout wraps a page: navigation, who is signed in, and the script for live updates. */
export function layout(options: LayoutOptions, main: SafeHtml): SafeHtml {
  return html`${layoutHead(options)}${main}${layoutTail}`;
}

/** layoutTail closes what layoutHead opened. */
export const layoutTail = raw('</main></body></html>');

/** layoutHead is the page up to its main element, so a main part kept encoded can go between it and layoutTail. */
export function layoutHead(options: LayoutOptions): SafeHtml {
  const { principal } = options;
  const nav = links.map(([id, href, label]) => html`<a href="${href}"${id === options.nav ? html` aria-current="page"` : ''}>${label}</a>`);
  const user = principal ? html`<span class="user">${principal.name} <span class="role role-${principal.role}">${principal.role}</span></span>${principal.via === 'session' ? html`<form method="post" action="/logout" class="inline"><input type="hidden" name="_csrf" value="${principal.csrf ?? ''}"><button class="link">Sign out</button></form>` : ''}` : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Tidemark</title><link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script></head>
<body data-live="${options.live ?? ''}" data-live-key="${options.liveKey ?? ''}"${options.liveTree ? html` data-tree-cluster="${options.liveTree.cluster}" data-tree-owners="${options.liveTree.ownerUids.join(' ')}"` : ''}>
<a class="skip" href="#main">Skip to the content</a>
<header><a class="brand" href="/">Tidemark</a><nav aria-label="Pages">${nav}</nav><span id="live-status" class="live-dot" role="img" aria-label="Live updates (green while connected)" title="Live updates: green while connected">●</span>${user}</header>
<main id="main" tabindex="-1">`;
}
