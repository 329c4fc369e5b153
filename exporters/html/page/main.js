// The page: the header's facts, the tabs (each says when it has no data and
// what would fill it), and the status a test reads once every chart is drawn.
CT.header = function () {
  const run = CT.data.run || {};
  const facts = document.getElementById('run-facts');
  function fact(k, v) { if (v) facts.appendChild(CT.el('span', {class: 'fact'}, k ? k + ' ' : '', CT.el('b', {text: String(v)}))); }
  if (CT.data.kind === 'ranks') {
    document.getElementById('run-title').textContent = (CT.data.ranks || []).length + ' ranks' + (run.source ? ' · ' + run.source : '');
    const hosts = {};
    (CT.data.ranks || []).forEach(function (r) { hosts[r.host] = 1; });
    fact('hosts', Object.keys(hosts).length);
    fact('GPUs', (CT.data.ranks || []).reduce(function (n, r) { return n + r.gpus; }, 0));
    (run.notes || []).forEach(function (n) { fact('', n); });
  } else {
    document.getElementById('run-title').textContent = run.command || run.process || run.source || 'Trace report';
    document.getElementById('run-title').title = run.command || '';
    fact('host', run.host);
    fact('pid', run.pid);
    if (run.rank >= 0) fact('rank', run.rank + (run.world_size ? '/' + run.world_size : ''));
    if (run.end_ns > run.start_ns && run.start_ns) fact('traced', CT.fmtDur(run.end_ns - run.start_ns));
    (run.devices || []).forEach(function (d) {
      fact('GPU ' + d.id, d.name + ' · ' + CT.fmtBytes(d.memory_bytes) + ' · CC ' + d.compute_capability);
    });
    const steps = CT.rows('breakdown').filter(function (r) { return r.step !== null; }).length;
    if (steps > 1) fact('steps', steps);
  }
};

CT.maybeDone = function () {
  if (!CT.built) return;
  for (const tab in CT.charts) if ((CT.drawn[tab] || 0) < CT.charts[tab].length) return;
  if (CT.doneAt) return;
  CT.doneAt = performance.now();
  setTimeout(CT.writeStatus, 0);
};
CT.writeStatus = function () {
  const expected = {};
  for (const tab in CT.charts) expected[tab] = CT.charts[tab].length;
  const status = {
    done: !!CT.doneAt,
    render_ms: CT.doneAt ? Math.round(CT.doneAt) : null,
    errors: CT.errors.length,
    error_messages: CT.errors.slice(0, 10),
    tabs: CT.tabs.map(function (t) { return {id: t.id, empty: t.empty}; }),
    charts: Object.assign({}, CT.drawn),
    charts_expected: expected,
    tables: Object.assign({}, CT.tables),
    // Requests the page made beyond itself: none may be.
    resources: performance.getEntriesByType('resource').length,
  };
  const el = document.getElementById('cuptitrace-status');
  el.textContent = JSON.stringify(status);
  el.setAttribute('data-done', status.done ? '1' : '0');
};

CT.main = function () {
  CT.header();
  CT.setupPerfetto();
  const hasOps = CT.rows('operators').length > 0;
  const kernels = CT.rows('kernels').length;
  const tabs = [
    {id: 'overview', title: 'Overview', build: CT.tabOverview, empty: false},
    {id: 'operators', title: 'Operators', build: CT.tabOperators, empty: !hasOps, count: CT.rows('operators_by_name').length || CT.rows('operators').length},
    {id: 'kernels', title: 'Kernels', build: CT.tabKernels, empty: !kernels, count: kernels},
    {id: 'gpu_metrics', title: 'GPU metrics', build: CT.tabGpuMetrics, empty: !((CT.data.series || {}).gpu_metrics || []).length},
    {id: 'memory', title: 'Memory', build: CT.tabMemory, empty: !((CT.data.series || {}).memory || []).length},
    {id: 'ranks', title: 'Ranks', build: CT.tabRanks, empty: !(CT.data.ranks || []).length, count: (CT.data.ranks || []).length},
    {id: 'cuda', title: 'CUDA and NVTX', build: CT.tabCuda, empty: !CT.rows('gpu_activities').length && !CT.rows('api_calls').length},
  ];
  const nav = document.getElementById('tabs');
  const panels = document.getElementById('panels');
  const wanted = (location.hash || '').slice(1);
  let active = tabs.some(function (t) { return t.id === wanted; }) ? wanted : 'overview';
  tabs.forEach(function (t) {
    const button = CT.el('button', {type: 'button', role: 'tab', class: 'tab' + (t.empty ? ' empty' : ''), 'data-tab': t.id,
      title: t.empty ? 'No data in this trace: the tab says what would fill it' : ''}, t.title,
      t.count ? CT.el('span', {class: 'count', text: CT.fmtCount(t.count)}) : null);
    const panel = CT.el('section', {class: 'panel', id: 'panel-' + t.id, role: 'tabpanel'});
    button.addEventListener('click', function () { select(t.id); });
    nav.appendChild(button);
    panels.appendChild(panel);
    CT.tabs.push({id: t.id, empty: t.empty});
    try { t.build(panel); } catch (e) { CT.errors.push(t.id + ': ' + e.message); }
  });
  function select(id) {
    active = id;
    nav.querySelectorAll('.tab').forEach(function (b) { b.classList.toggle('active', b.getAttribute('data-tab') === id); });
    panels.querySelectorAll('.panel').forEach(function (p) { p.classList.toggle('active', p.id === 'panel-' + id); });
    if (history.replaceState) try { history.replaceState(null, "", "#" + id); } catch (e) { /* file: may refuse */ }
    CT.resize(id);
  }
  select(active);
  CT.drawCharts();
  CT.built = true;
  window.addEventListener('resize', function () { CT.resize(active); });
  CT.maybeDone();
  // A chart that never finishes is counted as not drawn: the status says so.
  setTimeout(function () { if (!CT.doneAt) CT.writeStatus(); }, 10000);
};
try { CT.main(); } catch (e) { CT.errors.push('main: ' + e.message); CT.writeStatus(); }
