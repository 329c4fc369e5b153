// Charts: one ECharts instance per chart, drawn without animation (the page
// is read, not watched), counted per tab when it has finished drawing.
CT.chart = function (tab, option, cls) {
  const div = CT.el('div', {class: 'chart' + (cls ? ' ' + cls : '')});
  (CT.charts[tab] = CT.charts[tab] || []).push({div: div, option: option});
  return div;
};
// Draws the charts made so far (called once the tab's elements are in the page).
CT.drawCharts = function () {
  Object.keys(CT.charts).forEach(function (tab) {
    CT.charts[tab].forEach(function (c) {
      if (c.instance) return;
      CT.drawn[tab] = CT.drawn[tab] || 0;
      c.instance = echarts.init(c.div, null, {renderer: 'canvas'});
      c.instance.on('finished', function () {
        if (c.done) return;
        c.done = true;
        CT.drawn[tab]++;
        CT.maybeDone();
      });
      const base = {animation: false, textStyle: {fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif'}};
      c.instance.setOption(Object.assign(base, c.option));
    });
  });
};
CT.resize = function (tab) {
  (CT.charts[tab] || []).forEach(function (c) { if (c.instance) c.instance.resize(); });
};

// The largest `n` of rows by `valueKey`, and the rest as one "Other" slice,
// so that a slice's share is of the whole. Rows with no value are left out.
CT.topWithOther = function (rows, valueKey, nameOf, n) {
  const items = rows.filter(function (r) { return r[valueKey] > 0; })
    .map(function (r) { return {name: nameOf(r), value: r[valueKey]}; })
    .sort(function (a, b) { return b.value - a.value; });
  const top = items.slice(0, n);
  const rest = items.slice(n).reduce(function (s, x) { return s + x.value; }, 0);
  top.forEach(function (x, i) { x.itemStyle = {color: CT.palette[i % CT.palette.length]}; });
  if (rest > 0) top.push({name: 'Other (' + (items.length - n) + ')', value: rest, itemStyle: {color: CT.otherColor}});
  return top;
};

CT.short = function (name, max) {
  max = max || 60;
  return name.length <= max ? name : name.slice(0, max * 0.6) + '…' + name.slice(name.length - max * 0.35);
};

// A donut of items {name, value, itemStyle}; `fmt` writes a value.
CT.donut = function (items, fmt, opts) {
  opts = opts || {};
  const total = items.reduce(function (s, x) { return s + x.value; }, 0);
  return {
    tooltip: {trigger: 'item', confine: true, formatter: function (p) {
      return '<b>' + CT.escape(p.name) + '</b><br>' + fmt(p.value) + ' · ' + p.percent.toFixed(1) + '%';
    }},
    legend: opts.legend === false ? undefined : {type: 'scroll', orient: 'vertical', right: 0, top: 'middle', width: '42%',
      textStyle: {fontSize: 11.5, width: opts.legendWidth || 210, overflow: 'truncate'},
      formatter: function (name) { return CT.short(name, 48); }},
    title: opts.center === false ? undefined : {text: fmt(total), subtext: opts.centerLabel || 'total', left: opts.legend === false ? 'center' : '27%',
      top: 'center', textAlign: 'center', textStyle: {fontSize: 15, fontWeight: 600, color: '#1d2330'}, subtextStyle: {fontSize: 11, color: '#5d6675'}, itemGap: 2},
    series: [{type: 'pie', radius: ['48%', '76%'], center: [opts.legend === false ? '50%' : '28%', '50%'], avoidLabelOverlap: true,
      label: {show: false}, labelLine: {show: false}, itemStyle: {borderColor: '#fff', borderWidth: 1.5},
      data: items}],
  };
};

CT.escape = function (s) {
  return String(s).replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; });
};
