// Series over time: each GPU metric per device and each device's memory,
// zoomable (drag the slider, or scroll over the chart). Times are from the
// trace's start; the points were reduced in C++ to about ten thousand a series.
CT.timeAxis = function () {
  return {type: 'value', name: 'time since start', nameLocation: 'middle', nameGap: 26, nameTextStyle: {color: '#5d6675', fontSize: 11},
    scale: true, axisLabel: {formatter: function (v) { return CT.fmtDur(v); }}};
};
CT.zoom = [{type: 'inside', filterMode: 'none'}, {type: 'slider', height: 18, bottom: 6, filterMode: 'none', labelFormatter: function (v) { return CT.fmtDur(v); }}];

CT.tabGpuMetrics = function (panel) {
  const tab = 'gpu_metrics';
  const series = (CT.data.series && CT.data.series.gpu_metrics) || [];
  const report = CT.report('gpu_metrics');
  if (!series.length) {
    panel.appendChild(CT.emptyState('No GPU metrics in this trace',
      'GPU metrics are the GPUs\' own counters sampled over time (SMs active, Tensor Core and DRAM activity), with a verdict per kernel: ' +
      'compute-bound, memory-bound or latency-bound. Trace with cuptitrace --gpu-metrics to fill this tab.'));
    return;
  }
  // Values in the metric's unit: bytes per second as GB/s, large counts with SI prefixes.
  function valueFormat(unit) {
    if (unit.indexOf('bytes/s') >= 0) return function (v) { return (v / 1e9).toFixed(v >= 1e11 ? 0 : 1) + ' GB/s'; };
    if (unit.indexOf('%') >= 0) return function (v) { return Number(v).toFixed(1) + '%'; };
    return function (v) {
      const a = Math.abs(v);
      return a >= 1e9 ? (v / 1e9).toFixed(1) + ' G' : a >= 1e6 ? (v / 1e6).toFixed(1) + ' M' : a >= 1e4 ? (v / 1e3).toFixed(1) + ' k' : String(Math.round(v * 10) / 10);
    };
  }
  // One chart per metric, a line per device.
  const byName = {};
  series.forEach(function (s) { (byName[s.name + ' [' + s.unit + ']'] = byName[s.name + ' [' + s.unit + ']'] || []).push(s); });
  const grid = CT.el('div', {class: 'grid g2'});
  Object.keys(byName).forEach(function (name) {
    const list = byName[name];
    const samples = list.reduce(function (n, s) { return n + s.samples; }, 0);
    const card = CT.card(name, CT.fmtCount(samples) + ' samples' + (list.length > 1 ? ', ' + list.length + ' GPUs' : ''));
    const fmt = valueFormat(list[0].unit);
    const pct = list[0].unit.indexOf('%') >= 0;
    card.appendChild(CT.chart(tab, {
      tooltip: {trigger: 'axis', confine: true, valueFormatter: fmt},
      legend: list.length > 1 ? {top: 0} : undefined,
      grid: {left: 70, right: 16, top: list.length > 1 ? 30 : 14, bottom: 66},
      xAxis: CT.timeAxis(), yAxis: {type: 'value', min: 0, max: pct ? 100 : null, axisLabel: {formatter: fmt}},
      dataZoom: CT.zoom,
      series: list.map(function (s, i) {
        return {name: 'GPU ' + s.device, type: 'line', step: 'start', showSymbol: false, sampling: 'lttb', lineStyle: {width: 1.2},
          itemStyle: {color: CT.palette[i % CT.palette.length]}, areaStyle: list.length === 1 ? {opacity: 0.12} : undefined, data: s.points};
      }),
    }, 'short'));
    grid.appendChild(card);
  });
  // The verdicts first, the metrics that give them after.
  if (report) {
    const card = CT.card('Kernels by GPU metrics', 'averaged over each kernel\'s own time, with a verdict');
    card.appendChild(CT.table(tab, report, {plain: report.rows.length <= 12}));
    card.appendChild(CT.notes(report));
    panel.appendChild(CT.el('div', {class: 'grid'}, card));
  }
  panel.appendChild(grid);
};

CT.tabMemory = function (panel) {
  const tab = 'memory';
  const series = (CT.data.series && CT.data.series.memory) || [];
  if (!series.length) {
    panel.appendChild(CT.emptyState('No memory records in this trace',
      'Trace with the memory activity (cuptitrace --activities default,memory) to see each device\'s memory ' +
      'allocated through CUDA over time, its peak, and what was never freed.'));
    return;
  }
  series.forEach(function (s, i) {
    const card = CT.card('GPU ' + s.device + ': memory allocated through CUDA', 'peak ' + CT.fmtBytes(s.peak_bytes) + ' at ' + CT.fmtDur(s.peak_ns) +
      ' · ' + CT.fmtCount(s.changes) + ' allocations and frees');
    card.appendChild(CT.chart(tab, {
      tooltip: {trigger: 'axis', confine: true, valueFormatter: CT.fmtBytes},
      grid: {left: 72, right: 24, top: 24, bottom: 66},
      xAxis: CT.timeAxis(), yAxis: {type: 'value', axisLabel: {formatter: CT.fmtBytes}},
      dataZoom: CT.zoom,
      series: [{name: 'allocated', type: 'line', step: 'end', showSymbol: false, lineStyle: {width: 1.5},
        itemStyle: {color: CT.palette[i % CT.palette.length]}, areaStyle: {opacity: 0.15}, data: s.points,
        markPoint: {symbol: 'pin', symbolSize: 44, label: {formatter: function () { return 'peak'; }, fontSize: 10},
          data: [{coord: [s.peak_ns, s.peak_bytes], value: s.peak_bytes}]}}],
    }));
    panel.appendChild(CT.el('div', {class: 'grid'}, card));
  });
  const report = CT.report('gpu_memory');
  if (report && report.rows.length) {
    const card = CT.card(report.title);
    card.appendChild(CT.table(tab, report));
    card.appendChild(CT.el('p', {class: 'note', text: 'Memory allocated through CUDA (cudaMalloc and its kin). PyTorch\'s caching allocator ' +
      'allocates through CUDA what it reserves, so for PyTorch this is its reserved memory; what its tensors hold within that is not seen by CUDA.'}));
    panel.appendChild(CT.el('div', {class: 'grid'}, card));
  }
};
