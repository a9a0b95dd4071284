// Static assets, served from memory: no build step, and a strict CSP allows no inline script.

export const stylesheet = `
:root { --ok:#1a7f37; --warn:#9a6700; --bad:#cf222e; --info:#0969da; --muted:#6e7781; --line:#d0d7de; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, sans-serif; color:#1f2328; background:#f6f8fa; }
header { display:flex; gap:1.5rem; align-items:center; padding:.6rem 1.2rem; background:#24292f; color:#fff; }
header a { color:#fff; text-decoration:none; } header nav a { margin-right:1rem; opacity:.8; }
header nav a[aria-current] { opacity:1; font-weight:600; border-bottom:2px solid #fff; }
.brand { font-weight:700; } .user { margin-left:auto; } .live-dot { color:#888; } .live-dot.on { color:#3fb950; }
main { padding:1rem 1.2rem; max-width:1400px; }
h1 { font-size:1.3rem; margin:.2rem 0 1rem; } h2 { font-size:1.05rem; margin:1.4rem 0 .5rem; }
table { border-collapse:collapse; background:#fff; width:100%; } th, td { border:1px solid var(--line); padding:.3rem .5rem; text-align:left; vertical-align:top; }
th { background:#eaeef2; font-weight:600; } td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
code, pre { font:12px ui-monospace, monospace; } pre { margin:0; white-space:pre-wrap; word-break:break-all; max-width:40ch; }
.badge { display:inline-block; padding:0 .4rem; border-radius:1rem; font-size:12px; font-weight:600; margin-right:.2rem; border:1px solid; }
.state-ready { color:var(--ok); border-color:var(--ok); } .state-reconciling { color:var(--info); border-color:var(--info); }
.state-stalled, .state-failed { color:var(--bad); border-color:var(--bad); } .state-drifted { color:var(--warn); border-color:var(--warn); }
.state-waiting { color:var(--warn); border-color:var(--warn); }
.state-suspended, .state-unknown { color:var(--muted); border-color:var(--muted); }
.cond-good { color:var(--ok); } .cond-bad { color:var(--bad); font-weight:600; } .cond-busy { color:var(--info); } .cond-idle, .cond-unknown { color:var(--muted); }
.gen { font-size:12px; color:var(--muted); } .gen.behind { color:var(--warn); font-weight:600; }
.muted { color:var(--muted); } .error { color:var(--bad); } [hidden] { display:none !important; } .notice { padding:.5rem .8rem; background:#ddf4ff; border:1px solid #54aeff; margin-bottom:1rem; }
.tiles { display:flex; flex-wrap:wrap; gap:.8rem; } .tile { background:#fff; border:1px solid var(--line); padding:.6rem 1rem; min-width:8rem; text-decoration:none; color:inherit; }
.tile strong { display:block; font-size:1.6rem; } form.filters { display:flex; flex-wrap:wrap; gap:.5rem; margin-bottom:.8rem; align-items:end; }
form.filters label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); } form.inline { display:inline; }
button { cursor:pointer; } button.link { background:none; border:none; color:inherit; text-decoration:underline; }
.actions { display:flex; gap:.5rem; margin:.5rem 0 1rem; } dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1rem; background:#fff; padding:.6rem 1rem; border:1px solid var(--line); }
dl.facts dt { color:var(--muted); } .pager { margin:.6rem 0; display:flex; gap:1rem; align-items:center; }
td.flash { animation: flash 1.2s ease-out; } @keyframes flash { from { background:#fff8c5; } to { background:#fff; } }
.login { max-width:24rem; margin:4rem auto; background:#fff; padding:1.5rem; border:1px solid var(--line); }
.login input { width:100%; padding:.4rem; margin:.3rem 0 1rem; }
`;

export const script = `
(function () {
  var body = document.body, mode = body.dataset.live, key = body.dataset.liveKey;
  var filters = document.querySelector('form.filters');
  if (filters) filters.addEventListener('change', function (event) {
    if (event.target.tagName === 'SELECT') { var page = filters.querySelector('[name=page]'); if (page) page.value = '1'; filters.submit(); }
  });
  if (!mode || !window.EventSource) return;
  var dot = document.getElementById('live-status');
  var timer = null, busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { headers: { 'x-tidemark-partial': '1' }, credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (!text) return;
        var next = new DOMParser().parseFromString(text, 'text/html').querySelector('main');
        var main = document.querySelector('main');
        if (next && main) main.innerHTML = next.innerHTML;
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
      var notice = document.getElementById('live-notice');
      if (notice && cells.some(function (cell) { return cell.created; })) notice.hidden = false;
    }
    else if (mode === 'refresh') schedule();
    else if (mode === 'object' && cells.some(function (cell) { return cell.id === key; })) schedule();
  });
})();
`;
