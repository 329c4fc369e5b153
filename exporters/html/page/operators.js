// Operators: donuts of the top operators by device self and total time and
// by host self and total time (top N, the rest as "Other"), and the operator
// table, by name or by name and input shapes, with the Tensor Core columns.
CT.tabOperators = function (panel) {
  const tab = 'operators';
  const byShapes = CT.report('operators');
  const byName = CT.report('operators_by_name') || byShapes;
  if (!byShapes || !byShapes.rows.length) {
    panel.appendChild(CT.emptyState('No PyTorch operators in this trace',
      (byShapes && byShapes.notes.length ? byShapes.notes[0] : '') +
      '. Trace a PyTorch program with cuptitrace --pytorch ops (or shapes, for input shapes) to fill this tab: the ' +
      'operators\' host and device times, as the PyTorch profiler\'s operator view shows them.'));
    return;
  }
  const grouped = {report: byName};
  const pies = [
    ['device_self_ns', 'Device self time'], ['device_total_ns', 'Device total time'],
    ['host_self_ns', 'Host self time'], ['host_total_ns', 'Host total time']];
  let top = 10;
  const grid = CT.el('div', {class: 'grid g2'});
  const cards = pies.map(function (p) {
    const card = CT.card(p[1], 'top operators by name');
    const chart = CT.chart(tab, CT.donut(CT.topWithOther(byName.rows, p[0], function (r) { return r.name; }, top), CT.fmtDur));
    card.appendChild(chart);
    grid.appendChild(card);
    return {chart: chart, key: p[0]};
  });
  const topSelect = CT.el('select', {'aria-label': 'Operators in each donut'});
  [5, 10, 15, 20].forEach(function (n) { topSelect.appendChild(CT.el('option', n === top ? {value: n, selected: ''} : {value: n}, 'top ' + n)); });
  topSelect.addEventListener('change', function () {
    top = Number(topSelect.value);
    CT.charts[tab].forEach(function (c, i) {
      if (i >= cards.length || !c.instance) return;
      c.instance.setOption(CT.donut(CT.topWithOther(byName.rows, cards[i].key, function (r) { return r.name; }, top), CT.fmtDur), true);
    });
  });
  panel.appendChild(CT.el('div', {class: 'controls'}, 'Donuts show the', topSelect,
    'operators and the rest as Other; a share is of the sum over all operators (total times count nested operators again).'));
  panel.appendChild(grid);

  const tableCard = CT.card('Operators', byShapes === byName ? 'by name' : '');
  const seg = CT.el('div', {class: 'seg'});
  const hasShapes = byShapes !== byName;
  const tableHolder = CT.el('div');
  function show(report) {
    tableHolder.textContent = '';
    tableHolder.appendChild(CT.table(tab, report, {columns: ['name', 'input_shapes', 'calls', 'device_self_ns', 'device_self_pct',
      'device_total_ns', 'host_self_ns', 'host_self_pct', 'host_total_ns', 'kernels', 'tc_eligible', 'tc_self_ratio', 'tc_total_ratio', 'forward_op']}));
  }
  if (hasShapes) {
    const a = CT.el('button', {type: 'button', class: 'on', text: 'Name'});
    const b = CT.el('button', {type: 'button', text: 'Name and input shapes'});
    a.addEventListener('click', function () { a.className = 'on'; b.className = ''; show(byName); });
    b.addEventListener('click', function () { b.className = 'on'; a.className = ''; show(byShapes); });
    seg.appendChild(a);
    seg.appendChild(b);
    tableCard.appendChild(CT.el('div', {class: 'controls'}, 'Group by', seg));
  }
  show(byName);
  tableCard.appendChild(tableHolder);
  tableCard.appendChild(CT.notes(byShapes));
  panel.appendChild(CT.el('div', {class: 'grid'}, tableCard));
  grouped.report = byName;
};
