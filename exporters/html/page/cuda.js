// CUDA and NVTX: what nvprof and nsys print for any CUDA program: GPU
// activities (kernels, copies, sets) with a donut of GPU time, the API
// calls, and the NVTX ranges.
CT.tabCuda = function (panel) {
  const tab = 'cuda';
  const activities = CT.report('gpu_activities');
  const api = CT.report('api_calls');
  const nvtx = CT.report('nvtx');
  if (activities && activities.rows.length) {
    const donutCard = CT.card('GPU time', 'kernels, copies and sets');
    donutCard.appendChild(CT.chart(tab, CT.donut(CT.topWithOther(activities.rows, 'total_ns', function (r) { return r.name; }, 10), CT.fmtDur)));
    const apiCard = CT.card('API time', 'runtime and driver calls');
    if (api && api.rows.length) apiCard.appendChild(CT.chart(tab, CT.donut(CT.topWithOther(api.rows, 'total_ns', function (r) { return r.name; }, 10), CT.fmtDur)));
    else apiCard.appendChild(CT.el('p', {class: 'note', text: 'No API calls recorded.'}));
    panel.appendChild(CT.el('div', {class: 'grid g2'}, donutCard, apiCard));
  }
  [[activities, 'GPU activities', 'No kernel, copy or set ran on a GPU while tracing.'],
   [api, 'API calls', 'No CUDA runtime or driver call was recorded.'],
   [nvtx, 'NVTX ranges', 'No NVTX ranges: a program that marks its phases with nvtxRangePush/Pop (or torch.cuda.nvtx) shows them here.'],
   [CT.report('memory_time'), 'Memory operations by time', ''],
   [CT.report('osrt'), 'C library calls that blocked', '']].forEach(function (x) {
    const report = x[0];
    if (!report) return;
    if (!report.rows.length && !x[2]) return;
    const c = CT.card(x[1]);
    if (report.rows.length) {
      c.appendChild(CT.table(tab, report));
      c.appendChild(CT.notes(report));
    } else {
      c.appendChild(CT.el('p', {class: 'note', text: x[2]}));
    }
    panel.appendChild(CT.el('div', {class: 'grid'}, c));
  });
};
