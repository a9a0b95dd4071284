// Static assets, served from memory: no build step, and a strict CSP allows no inline script.

export const stylesheet = `
:root { color-scheme: light dark; --ok:#1a7f37; --warn:#9a6700; --bad:#cf222e; --info:#0969da; --muted:#59636e; --line:#d0d7de;
  --fg:#1f2328; --bg:#f6f8fa; --panel:#fff; --head:#eaeef2; --bar:#24292f; --bar-fg:#fff; --link:#0969da; --notice:#ddf4ff; --notice-line:#54aeff;
  --flash:#fff8c5; --add:#dafbe1; --del:#ffebe9; --focus:#0969da; }
@media (prefers-color-scheme: dark) {
  :root { --ok:#3fb950; --warn:#d29922; --bad:#f85149; --info:#58a6ff; --muted:#9198a1; --line:#3d444d; --fg:#e6edf3; --bg:#0d1117; --panel:#151b23;
    --head:#212830; --bar:#010409; --link:#58a6ff; --notice:#0c2d6b; --notice-line:#1f6feb; --flash:#4d3800; --add:#12361f; --del:#4c1c1f; --focus:#58a6ff; }
}
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--link); } a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible, [tabindex]:focus-visible { outline:2px solid var(--focus); outline-offset:2px; }
.skip { position:absolute; left:-999px; top:0; background:var(--panel); padding:.4rem .8rem; z-index:10; } .skip:focus { left:.5rem; }
.visually-hidden { position:absolute !important; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
header { display:flex; flex-wrap:wrap; gap:.4rem 1.5rem; align-items:center; padding:.6rem 1.2rem; background:var(--bar); color:var(--bar-fg); }
header a { color:var(--bar-fg); text-decoration:none; } header nav { display:flex; flex-wrap:wrap; gap:.2rem 1rem; } header nav a { opacity:.85; }
header nav a[aria-current] { opacity:1; font-weight:600; border-bottom:2px solid var(--bar-fg); }
header button.link { color:var(--bar-fg); }
.brand { font-weight:700; } .user { margin-left:auto; } .live-dot { color:#8b949e; } .live-dot.on { color:#3fb950; }
main { padding:1rem 1.2rem; max-width:1400px; }
h1 { font-size:1.3rem; margin:.2rem 0 1rem; overflow-wrap:anywhere; } h2 { font-size:1.05rem; margin:1.4rem 0 .5rem; }
.scroll { overflow-x:auto; max-width:100%; }
table { border-collapse:collapse; background:var(--panel); width:100%; } th, td { border:1px solid var(--line); padding:.3rem .5rem; text-align:left; vertical-align:top; }
th { background:var(--head); font-weight:600; } th[scope=row] { background:var(--panel); font-weight:400; } td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
caption { text-align:left; padding:.3rem 0; color:var(--muted); }
code, pre { font:12px ui-monospace, monospace; } pre { margin:0; white-space:pre-wrap; word-break:break-all; max-width:40ch; }
abbr[title] { text-decoration:underline dotted; cursor:help; }
.badge { display:inline-block; padding:0 .4rem; border-radius:1rem; font-size:12px; font-weight:600; margin-right:.2rem; border:1px solid; }
.state-ready { color:var(--ok); border-color:var(--ok); } .state-reconciling { color:var(--info); border-color:var(--info); }
.state-stalled, .state-failed { color:var(--bad); border-color:var(--bad); } .state-drifted { color:var(--warn); border-color:var(--warn); }
.state-waiting { color:var(--warn); border-color:var(--warn); }
ul.deps { list-style:none; padding-left:1.2rem; border-left:1px solid var(--line); margin:.2rem 0; } ul.deps li { margin:.2rem 0; } .why { font-size:12px; color:var(--muted); margin-left:1.5rem; }
.state-suspended, .state-unknown { color:var(--muted); border-color:var(--muted); }
.cond-good { color:var(--ok); } .cond-bad { color:var(--bad); font-weight:600; } .cond-busy { color:var(--info); } .cond-idle, .cond-unknown { color:var(--muted); }
.gen { font-size:12px; color:var(--muted); } .gen.behind { color:var(--warn); font-weight:600; } .repeats { font-size:12px; color:var(--muted); }
.muted { color:var(--muted); } .error { color:var(--bad); } [hidden] { display:none !important; } .notice { padding:.5rem .8rem; background:var(--notice); border:1px solid var(--notice-line); margin-bottom:1rem; }
.tiles { display:flex; flex-wrap:wrap; gap:.8rem; } .tile { background:var(--panel); border:1px solid var(--line); padding:.6rem 1rem; min-width:8rem; text-decoration:none; color:inherit; }
.tile strong { display:block; font-size:1.6rem; } form.filters { display:flex; flex-wrap:wrap; gap:.5rem; margin-bottom:.8rem; align-items:end; }
form.filters label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); } form.inline { display:inline; }
input, select, button { font:inherit; color:inherit; background:var(--panel); border:1px solid var(--line); border-radius:4px; padding:.2rem .4rem; }
button { cursor:pointer; } button.link { background:none; border:none; color:inherit; text-decoration:underline; }
.actions { display:flex; flex-wrap:wrap; gap:.5rem; margin:.5rem 0 1rem; } dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1rem; background:var(--panel); padding:.6rem 1rem; border:1px solid var(--line); }
dl.facts dt, dl.legend dt { color:var(--muted); } dl.facts dd { margin:0; overflow-wrap:anywhere; } .pager { margin:.6rem 0; display:flex; flex-wrap:wrap; gap:1rem; align-items:center; }
dl.legend { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1rem; } dl.legend dd { margin:0; }
td.flash { animation: flash 1.2s ease-out; } @keyframes flash { from { background:var(--flash); } to { background:var(--panel); } }
@media (prefers-reduced-motion: reduce) { td.flash { animation:none; } }
figure.diff { margin:0 0 1rem; } figure.diff figcaption { margin:.3rem 0; }
table.diff td { padding:0 .5rem; border-width:0 1px; white-space:nowrap; } table.diff code { white-space:pre; } table.diff tr.changed td.del { background:var(--del); } table.diff tr.changed td.ins { background:var(--add); }
table.diff .mark { display:inline-block; width:1ch; margin-right:.4rem; color:var(--muted); } table.diff tr.context .mark { visibility:hidden; } table.diff td.manager { font-size:12px; color:var(--muted); }
svg.tree { display:block; font:12px system-ui, sans-serif; } .tree-frame { margin-bottom:.6rem; }
.tree-edge { fill:none; stroke:var(--muted); stroke-width:1.5; }
.tree-node rect { fill:var(--panel); stroke:var(--line); stroke-width:1.5; } .tree-node:hover rect, .tree-node:focus rect { stroke:var(--focus); stroke-width:3; } .tree-node:focus { outline:none; }
.tree-node.drifted rect { stroke:var(--warn); stroke-width:3; stroke-dasharray:7 3; }
.tree-node circle { fill:var(--muted); } .tree-node.health-ready circle { fill:var(--ok); } .tree-node.health-progressing circle { fill:var(--info); } .tree-node.health-failed circle { fill:var(--bad); }
.tree-icon { fill:var(--panel); font-weight:700; font-size:13px; } .tree-kind, .tree-sync { fill:var(--muted); font-size:11px; } .tree-name { fill:var(--fg); font-weight:600; }
.tree-node.drifted .tree-sync { fill:var(--warn); font-weight:700; }
.health-text.health-ready { color:var(--ok); } .health-text.health-progressing { color:var(--info); } .health-text.health-failed { color:var(--bad); font-weight:600; } .health-text.health-unknown { color:var(--muted); }
tr:target > * { background:var(--flash); } tr.tree-row.drifted th { color:var(--warn); font-weight:600; }
.charts { display:flex; flex-wrap:wrap; gap:1rem; } figure.chart { margin:0 0 1rem; background:var(--panel); border:1px solid var(--line); padding:.5rem .7rem; max-width:100%; }
figure.chart figcaption { margin-bottom:.3rem; } .chart-now { float:right; font-variant-numeric:tabular-nums; margin-left:1rem; } .chart-text { font-size:12px; color:var(--muted); margin:.3rem 0; max-width:40rem; }
figure.chart svg { display:block; font:11px system-ui, sans-serif; } .chart-line { fill:none; stroke:var(--info); stroke-width:1.8; } .chart-axis, .chart-tick { stroke:var(--line); stroke-width:1; }
.chart-bar { fill:var(--info); } .chart-label { fill:var(--fg); } .chart-label.small { font-size:10px; fill:var(--muted); } .muted-fill { fill:var(--muted); }
.rollout-bar { fill:var(--muted); } .rollout-bar.state-ready { fill:var(--ok); } .rollout-bar.state-applying { fill:var(--info); } .rollout-bar.state-failed { fill:var(--bad); }
.run { fill:var(--muted); } .run-succeeded { fill:var(--ok); } .run-progressing { fill:var(--info); } .run-failed, .run-stalled { fill:var(--bad); } .run-pruned, .run-skipped { fill:var(--muted); }
figure.chart details table { margin-top:.3rem; } figure.chart details { font-size:12px; }
.rendered-toggle, .rendered-issues { font-size:12px; } .rendered-issues { color:var(--warn); font-weight:600; }
tr.rendered td { background:var(--bg); font-size:13px; } tr.rendered td:first-child { padding-left:1.2rem; } .rendered-mark { color:var(--muted); }
.login { max-width:24rem; margin:4rem auto; background:var(--panel); padding:1.5rem; border:1px solid var(--line); }
.login input { width:100%; padding:.4rem; margin:.3rem 0 1rem; }
@media (max-width: 700px) {
  main { padding:.8rem .6rem; } header { padding:.5rem .6rem; } .user { margin-left:0; }
  dl.facts, dl.legend { grid-template-columns:1fr; } dl.facts dd { margin-bottom:.4rem; } .tile { min-width:6.5rem; padding:.4rem .6rem; }
  pre { max-width:none; }
  /* Wide tables scroll inside the page; the page itself never scrolls sideways. */
  main table { display:block; overflow-x:auto; max-width:100%; } main .scroll > table { display:table; }
  form.filters label, form.filters input, form.filters select { width:100%; }
}
`;

export const script = `
(function () {
  var body = document.body, mode = body.dataset.live, key = body.dataset.liveKey;
  var filters = document.querySelector('form.filters');
  if (filters) filters.addEventListener('change', function (event) {
    if (event.target.tagName === 'SELECT') { var page = filters.querySelector('[name=page]'); if (page) page.value = '1'; filters.submit(); }
  });
  // A region that scrolls sideways (a wide table on a phone) takes the keyboard focus, so it can be scrolled without a mouse.
  function markScrollable() {
    document.querySelectorAll('main table, main .scroll').forEach(function (element) {
      var scrolls = element.scrollWidth > element.clientWidth + 1 && getComputedStyle(element).overflowX !== 'visible';
      if (scrolls && !element.hasAttribute('tabindex')) element.setAttribute('tabindex', '0');
      else if (!scrolls && element.getAttribute('tabindex') === '0') element.removeAttribute('tabindex');
    });
  }
  markScrollable();
  // A CR's row links to the objects it rendered: open their rows under it in place, read from that page.
  var expanded = {};
  function collapse(parent) {
    document.querySelectorAll('tr.rendered[data-parent="' + CSS.escape(parent) + '"]').forEach(function (row) { row.remove(); });
  }
  function expand(toggle) {
    var parent = toggle.dataset.parent, row = toggle.closest('tr');
    expanded[parent] = true;
    toggle.setAttribute('aria-expanded', 'true');
    return fetch(toggle.href, { credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (!text || !row || !row.isConnected || !expanded[parent]) return;
        var rows = new DOMParser().parseFromString(text, 'text/html').querySelectorAll('tr.rendered');
        collapse(parent);
        var after = row;
        rows.forEach(function (rendered) { var copy = document.importNode(rendered, true); after.after(copy); after = copy; });
        markScrollable();
        body.dataset.expanded = String(Date.now());
      });
  }
  function initToggles() {
    document.querySelectorAll('a.rendered-toggle').forEach(function (toggle) {
      if (expanded[toggle.dataset.parent]) expand(toggle); else toggle.setAttribute('aria-expanded', 'false');
    });
  }
  document.addEventListener('click', function (event) {
    var toggle = event.target.closest ? event.target.closest('a.rendered-toggle') : null;
    if (!toggle || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (toggle.getAttribute('aria-expanded') !== 'true') { expand(toggle); return; }
    delete expanded[toggle.dataset.parent];
    collapse(toggle.dataset.parent);
    toggle.setAttribute('aria-expanded', 'false');
  });
  initToggles();
  var resizing = null;
  window.addEventListener('resize', function () { clearTimeout(resizing); resizing = setTimeout(markScrollable, 100); });
  if (!mode || !window.EventSource) return;
  var dot = document.getElementById('live-status');
  var timer = null, busy = false, again = false;
  // The objects page swaps only its results, so the filter form keeps focus and what was typed.
  var region = mode === 'cells' ? '#results' : 'main';
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { headers: { 'x-tidemark-partial': '1' }, credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (!text) return;
        var next = new DOMParser().parseFromString(text, 'text/html').querySelector(region);
        var current = document.querySelector(region);
        if (!next || !current) return;
        var known = {};
        current.querySelectorAll('tr[data-object]').forEach(function (row) { known[row.dataset.object] = true; });
        current.innerHTML = next.innerHTML;
        if (mode === 'cells') current.querySelectorAll('tr[data-object]').forEach(function (row) {
          if (!known[row.dataset.object]) row.querySelectorAll('td').forEach(function (cell) { cell.classList.add('flash'); });
        });
        initToggles();
        markScrollable();
        body.dataset.refreshed = String(Date.now());
      })
      .finally(function () { busy = false; if (again) { again = false; schedule(); } });
  }
  function schedule() { if (!timer) timer = setTimeout(function () { timer = null; refresh(); }, 150); }
  function patch(cells) {
    var byId = {};
    cells.forEach(function (cell) { byId[cell.id] = cell.html; });
    document.querySelectorAll('[data-cell]').forEach(function (element) {
      var next = byId[element.dataset.cell];
      if (next === undefined) return;
      var holder = document.createElement('tbody');
      holder.innerHTML = '<tr>' + next + '</tr>';
      var cell = holder.querySelector('td');
      if (cell) { cell.classList.add('flash'); element.replaceWith(cell); }
      // The line and rows of what the object rendered come from the same record: fetch them again.
      var key = element.dataset.cell.split('|')[1];
      if (document.querySelector('[data-parent="' + CSS.escape(key) + '"]')) schedule();
    });
  }
  // Queue figures move without status writes: summary pages also refresh every 5 s while visible.
  if (mode === 'refresh') setInterval(function () { if (!document.hidden) schedule(); }, 5000);
  var events = new EventSource('/events'), lost = false;
  // After a lost connection, changes may have been missed: reload the data once reconnected.
  events.onopen = function () { if (dot) dot.classList.add('on'); if (lost) { lost = false; refresh(); } };
  events.onerror = function () { if (dot) dot.classList.remove('on'); lost = true; };
  events.addEventListener('cells', function (event) {
    var cells = JSON.parse(event.data).cells;
    if (mode === 'cells') {
      patch(cells);
      // A new object may belong on this page: fetch the rows again (filtered, sorted, paged by the server).
      var created = cells.filter(function (cell) { return cell.created; }).length;
      var notice = document.getElementById('live-notice');
      if (created > 0) { schedule(); if (notice) notice.textContent = created + (created === 1 ? ' new object' : ' new objects') + ' arrived; the list is updated.'; }
    }
    else if (mode === 'refresh') schedule();
    else if (mode === 'object' && cells.some(function (cell) { return cell.id === key; })) schedule();
  });
  // Pods and ReplicaSets under an object this page draws came, went or changed health: redraw its tree.
  var treeCluster = body.dataset.treeCluster, treeOwners = (body.dataset.treeOwners || '').split(' ').filter(Boolean);
  events.addEventListener('tree', function (event) {
    if (mode !== 'object' || !treeCluster) return;
    var change = JSON.parse(event.data);
    if (change.cluster !== treeCluster) return;
    if (change.replaced || change.ownerUids.some(function (uid) { return treeOwners.indexOf(uid) >= 0; })) schedule();
  });
})();
`;
