// Kernels: time per kernel and Tensor Core use as donuts, and the kernel
// table (Tensor Cores, calls, times, blocks per SM, occupancy, its limit).
CT.tabKernels = function (panel) {
  const tab = 'kernels';
  const kernels = CT.report('kernels');
  const gpuKernels = CT.report('gpu_kernels');
  if (!kernels || !kernels.rows.length) {
    panel.appendChild(CT.emptyState('No kernels in this trace',
      'No kernel ran while tracing (or the kernel activity was off: CUPTITRACE_ACTIVITIES). A CUDA program\'s kernels fill this tab.'));
    return;
  }
  const timeCard = CT.card('Time per kernel', CT.fmtCount(kernels.rows.length) + ' kernels');
  timeCard.appendChild(CT.chart(tab, CT.donut(CT.topWithOther(kernels.rows, 'total_ns', function (r) { return r.name; }, 10), CT.fmtDur)));
  const tcCard = CT.card('Tensor Cores', 'kernel time');
  if (gpuKernels && gpuKernels.rows.length) {
    let yes = 0, no = 0;
    gpuKernels.rows.forEach(function (r) { if (r.tensor_cores === 'yes') yes += r.total_ns; else no += r.total_ns; });
    tcCard.appendChild(CT.chart(tab, CT.donut([
      {name: 'On Tensor Cores', value: yes, itemStyle: {color: CT.tensorColor}},
      {name: 'Not on Tensor Cores', value: no, itemStyle: {color: CT.otherColor}}].filter(function (x) { return x.value > 0; }), CT.fmtDur)));
  }
  panel.appendChild(CT.el('div', {class: 'grid g2'}, timeCard, tcCard));
  const tableCard = CT.card('Kernels', gpuKernels ? gpuKernels.title : '');
  tableCard.appendChild(CT.table(tab, gpuKernels && gpuKernels.rows.length ? gpuKernels : kernels));
  tableCard.appendChild(CT.notes(gpuKernels || kernels));
  panel.appendChild(CT.el('div', {class: 'grid'}, tableCard));
};
