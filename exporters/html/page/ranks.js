// Ranks: per rank, its GPU time stacked as compute alone, communication
// overlapped by compute, communication alone, copies and idle; the straggler
// named; the collectives' spread across ranks.
CT.tabRanks = function (panel) {
  const tab = 'ranks';
  const ranks = CT.data.ranks || [];
  if (!ranks.length) {
    panel.appendChild(CT.emptyState('One process',
      'Give several ranks\' traces (cuptitrace report t.*.native -o job.html), or the summaries cuptitrace summarize made for them ' +
      '(cuptitrace report --summaries ...), to compare ranks here: their compute and communication, the straggler and the collectives\' spread.'));
    return;
  }
  const parts = [
    {title: 'Compute', color: '#4C78A8', value: function (r) { return r.compute_ns - Math.min(r.compute_ns, r.overlapped_ns); }},
    {title: 'Comm. overlapped', color: '#9ECAE9', value: function (r) { return r.overlapped_ns; }},
    {title: 'Communication', color: '#72B7B2', value: function (r) { return r.comm_ns - Math.min(r.comm_ns, r.overlapped_ns); }},
    {title: 'Copies', color: '#F58518', value: function (r) { return r.copy_ns; }},
    {title: 'Idle', color: '#BAB0AC', value: function (r) { return r.idle_ns; }},
  ];
  const card = CT.card('GPU time per rank', ranks.length + ' ranks');
  card.appendChild(CT.chart(tab, {
    tooltip: {trigger: 'axis', axisPointer: {type: 'shadow'}, confine: true, valueFormatter: CT.fmtDur},
    legend: {top: 0},
    grid: {left: 70, right: 20, top: 36, bottom: ranks.length > 32 ? 50 : 30},
    xAxis: {type: 'category', data: ranks.map(function (r) { return r.name; })},
    yAxis: {type: 'value', axisLabel: {formatter: CT.fmtDur}},
    dataZoom: ranks.length > 32 ? [{type: 'inside'}, {type: 'slider', height: 16, bottom: 4}] : undefined,
    series: parts.map(function (p) {
      return {name: p.title, type: 'bar', stack: 'rank', barMaxWidth: 56, itemStyle: {color: p.color}, data: ranks.map(p.value)};
    }),
  }, 'tall'));
  card.appendChild(CT.el('p', {class: 'note', text: 'Summed over each rank\'s GPUs. Compute: non-NCCL kernels; communication: NCCL\'s kernels, ' +
    'overlapped where compute ran at the same time on the same GPU; idle: no GPU work between the first and the last.'}));
  panel.appendChild(CT.el('div', {class: 'grid'}, card));
  const findings = CT.report('rank_findings');
  if (findings && findings.rows.length) {
    const f = CT.card('Straggler and other findings');
    const ul = CT.el('ul', {class: 'findings'});
    findings.rows.forEach(function (r) { ul.appendChild(CT.el('li', null, CT.el('div', {class: 't', text: r.finding}), CT.el('div', {class: 'd', text: r.details}))); });
    f.appendChild(ul);
    panel.appendChild(CT.el('div', {class: 'grid'}, f));
  }
  ['ranks', 'collective_spread', 'collectives', 'rank_kernels'].forEach(function (name) {
    const report = CT.report(name);
    if (!report || !report.rows.length) return;
    const c = CT.card(report.title);
    c.appendChild(CT.table(tab, report));
    c.appendChild(CT.notes(report));
    panel.appendChild(CT.el('div', {class: 'grid'}, c));
  });
};
