// Overview: the run, the GPU summary, the execution summary beside a donut
// of the average step, the step-time breakdown per step, and the findings.
CT.tabOverview = function (panel) {
  const tab = 'overview';
  const run = CT.data.run || {};
  // The run and its devices.
  const runCard = CT.card('Run');
  const kv = CT.el('dl', {class: 'kv'});
  function fact(k, v) { if (v !== undefined && v !== null && v !== '') { kv.appendChild(CT.el('dt', {text: k})); kv.appendChild(CT.el('dd', {text: String(v)})); } }
  fact('Command', run.command);
  fact('Host', run.host);
  fact('Process', run.pid ? (run.process || '') + ' (pid ' + run.pid + ')' : '');
  if (run.rank >= 0) fact('Rank', run.rank + (run.world_size ? ' of ' + run.world_size : ''));
  if (run.end_ns > run.start_ns && run.start_ns) fact('Traced for', CT.fmtDur(run.end_ns - run.start_ns));
  if (run.start_wall_ns) fact('Started', new Date(run.start_wall_ns / 1e6).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');
  if (run.records) fact('Records', Object.keys(run.records).map(function (k) { return CT.fmtCount(run.records[k]) + ' ' + k; }).join(', '));
  fact('Tracer', 'cuptitrace ' + (run.tool_version || '') + (run.cupti_version ? ', CUPTI API ' + run.cupti_version : '') +
    (run.driver_version ? ', driver ' + Math.floor(run.driver_version / 1000) + '.' + (run.driver_version % 1000) / 10 : ''));
  fact('Source', run.source);
  runCard.appendChild(kv);
  const devCard = CT.card('Devices');
  if (run.devices && run.devices.length) {
    devCard.appendChild(CT.table(tab, {columns: [
      {key: 'id', title: 'Device', type: 'count'}, {key: 'name', title: 'Name', type: 'text'},
      {key: 'memory_bytes', title: 'Memory', type: 'bytes'}, {key: 'compute_capability', title: 'CC', type: 'text'},
      {key: 'sms', title: 'SMs', type: 'count'}, {key: 'clock_mhz', title: 'MHz', type: 'count'}], rows: run.devices, notes: []},
      {plain: true}));
  } else {
    devCard.appendChild(CT.el('p', {class: 'note', text: 'The trace names no device (no CUDA context was made while tracing).'}));
  }
  panel.appendChild(CT.el('div', {class: 'grid g-side'}, runCard, devCard));

  // The GPU summary, per device.
  const summary = CT.rows('gpu_summary');
  const gpuCard = CT.card('GPU summary', summary.length && summary[0].name ? '' : '');
  if (summary.length) {
    summary.forEach(function (r) {
      const m = CT.el('div', {class: 'metrics'});
      [['utilization_pct', 'Utilization'], ['sm_efficiency_pct', 'Est. SM efficiency'],
       ['achieved_occupancy_pct', 'Est. achieved occupancy'], ['tensor_core_pct', 'Kernel time on Tensor Cores']].forEach(function (p) {
        const v = r[p[0]];
        m.appendChild(CT.el('div', {class: 'metric'}, CT.el('div', {class: 'v', text: v === null ? 'n/a' : CT.fmtPct(v)}),
          CT.el('div', {class: 'k', text: p[1]}), CT.el('div', {class: 'bar'}, CT.el('i', {style: 'width:' + Math.min(100, v || 0) + '%'}))));
      });
      gpuCard.appendChild(CT.el('div', {class: 'note', style: 'margin:0 0 6px', text: 'GPU ' + r.device + (r.name ? ' · ' + r.name : '') + ' · ' + CT.fmtCount(r.kernels) + ' kernels over ' + CT.fmtDur(r.span_ns)}));
      gpuCard.appendChild(m);
    });
    gpuCard.appendChild(CT.notes(CT.report('gpu_summary')));
  } else {
    gpuCard.appendChild(CT.el('p', {class: 'note', text: 'No kernels ran: nothing to summarize.'}));
  }
  panel.appendChild(CT.el('div', {class: 'grid'}, gpuCard));

  // The execution summary: the average step (or the whole run), by category.
  const breakdown = CT.report('breakdown');
  const rows = breakdown ? breakdown.rows : [];
  const steps = rows.filter(function (r) { return r.step !== null; });
  // The rows without a step number: the warm-up before the first step (in no
  // average) and the Average row.
  const warmup = rows.find(function (r) { return r.step === null && r.range === 'warm-up'; });
  const avg = rows.find(function (r) { return r.step === null && r !== warmup; }) || (steps.length === 1 ? steps[0] : null);
  if (avg) {
    const which = steps.length > 1 ? 'Average step' : steps.length === 1 ? 'The step' : 'Whole run';
    const parts = CT.categories.map(function (c) {
      return {key: c.key, title: c.title, color: c.color, value: avg[c.key + '_ns'], pct: avg[c.key + '_pct']};
    });
    const sumCard = CT.card('Execution summary', which + ': ' + CT.fmtDur(avg.total_ns) +
      (warmup ? ' · warm-up before the first step, left out: ' + CT.fmtDur(warmup.total_ns) : ''));
    sumCard.appendChild(CT.table(tab, {columns: [
      {key: 'title', title: 'Category', type: 'text'}, {key: 'value', title: 'Time', type: 'duration'},
      {key: 'pct', title: 'Share', type: 'percent'}], rows: parts, notes: []},
      {plain: true, swatch: {key: 'title', color: function (r) { return r.color; }}}));
    const donutCard = CT.card(which, 'time by category');
    donutCard.appendChild(CT.chart(tab, CT.donut(parts.filter(function (p) { return p.value > 0; }).map(function (p) {
      return {name: p.title, value: p.value, itemStyle: {color: p.color}};
    }), CT.fmtDur, {centerLabel: which.toLowerCase()})));
    panel.appendChild(CT.el('div', {class: 'grid g-side'}, sumCard, donutCard));
  }

  // The step-time breakdown, a stacked bar per step.
  const stepCard = CT.card('Step-time breakdown', breakdown ? (breakdown.notes.find(function (n) { return n.startsWith('Steps:'); }) || '') : '');
  if (steps.length > 1) {
    const labels = steps.map(function (r) { return r.range ? CT.short(r.range, 24) : 'step ' + r.step; });
    stepCard.appendChild(CT.chart(tab, {
      tooltip: {trigger: 'axis', axisPointer: {type: 'shadow'}, confine: true, formatter: function (ps) {
        const r = steps[ps[0].dataIndex];
        return '<b>' + CT.escape(r.range || 'step ' + r.step) + '</b> · ' + CT.fmtDur(r.total_ns) + '<br>' + ps.filter(function (p) { return p.value > 0; })
          .map(function (p) { return p.marker + p.seriesName + ': ' + CT.fmtDur(p.value) + ' (' + CT.fmtPct(r[CT.categories[p.seriesIndex].key + '_pct']) + ')'; }).join('<br>');
      }},
      legend: {top: 0, data: CT.categories.map(function (c) { return c.title; })},
      grid: {left: 70, right: 20, top: 40, bottom: 50},
      xAxis: {type: 'category', data: labels, axisLabel: {rotate: labels.length > 12 ? 40 : 0, fontSize: 11}},
      yAxis: {type: 'value', axisLabel: {formatter: CT.fmtDur}},
      dataZoom: steps.length > 40 ? [{type: 'inside'}, {type: 'slider', height: 16, bottom: 4}] : undefined,
      series: CT.categories.map(function (c) {
        return {name: c.title, type: 'bar', stack: 'step', barMaxWidth: 48, itemStyle: {color: c.color},
          data: steps.map(function (r) { return r[c.key + '_ns']; })};
      }),
    }, 'tall'));
    stepCard.appendChild(CT.notes(breakdown));
  } else {
    stepCard.appendChild(CT.emptyState(steps.length ? 'One step' : 'No steps found',
      (breakdown && breakdown.notes.length ? breakdown.notes[0] + '. ' : '') +
      'Steps come from torch.profiler\'s ProfilerStep#N, NVTX ranges named like "step N", the optimizer\'s step() (--pytorch ops), or --step-range NAME.'));
  }
  panel.appendChild(CT.el('div', {class: 'grid'}, stepCard));

  // The findings, as recommendations.
  const findings = CT.report('findings') || CT.report('rank_findings');
  const fCard = CT.card('Recommendations', findings ? findings.rows.length + ' findings' : '');
  if (findings && findings.rows.length) {
    const ul = CT.el('ul', {class: 'findings'});
    findings.rows.forEach(function (r) {
      ul.appendChild(CT.el('li', null, CT.el('div', {class: 't', text: r.finding || ''}), CT.el('div', {class: 'd', text: r.details || ''}),
        r.records ? CT.el('div', {class: 'r', text: r.records}) : null));
    });
    fCard.appendChild(ul);
    CT.tables[tab] = (CT.tables[tab] || 0) + findings.rows.length;
  } else {
    fCard.appendChild(CT.el('p', {class: 'note', text: 'Nothing stands out.'}));
  }
  panel.appendChild(CT.el('div', {class: 'grid'}, fCard));
};
