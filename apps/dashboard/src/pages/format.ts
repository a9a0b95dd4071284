import { html, type SafeHtml } from './html';

/** age says how long ago an RFC 3339 time was, in the largest whole unit. */
export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '—';
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** timeAgo is an age with the exact time in a tooltip. */
export function timeAgo(iso: string | undefined): SafeHtml {
  return iso ? html`<time datetime="${iso}" title="${iso}">${age(iso)}</time>` : html`—`;
}

export function shortRevision(revision: string | undefined): SafeHtml {
  return revision ? html`<code title="${revision}">${revision.slice(0, 10)}</code>` : html`<span class="muted">none yet</span>`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** jsonValue shows a drift value compactly; undefined means the field is absent. */
export function jsonValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value, null, 1) ?? String(value);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
