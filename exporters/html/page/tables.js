// Tables of a report: sortable (click a header), filterable (the box above),
// each value formatted by its column's type. At most `limit` rows are drawn
// at once; the filter reaches all of them.
CT.table = function (tab, report, opts) {
  opts = opts || {};
  const limit = opts.limit || 1000;
  // opts.columns: the keys to show, in that order (those the report lacks are skipped).
  const cols = !opts.columns ? report.columns : opts.columns.map(function (k) {
    return report.columns.find(function (c) { return c.key === k; });
  }).filter(function (c) { return !!c; });
  let rows = report.rows.filter(opts.filter || function () { return true; });
  let sortKey = null, asc = false, query = '';
  const wrap = CT.el('div');
  const info = CT.el('span');
  const input = CT.el('input', {type: 'search', placeholder: 'Filter rows…', 'aria-label': 'Filter rows'});
  const tableEl = CT.el('table', {class: 'data'});
  const isText = function (c) { return c.type === 'text' || c.type === 'name'; };
  const thead = CT.el('thead');
  const tr = CT.el('tr');
  cols.forEach(function (c) {
    const th = CT.el('th', {class: isText(c) ? 'text' : '', title: c.key, text: c.title});
    th.addEventListener('click', function () {
      if (sortKey === c.key) asc = !asc; else { sortKey = c.key; asc = isText(c); }
      tr.querySelectorAll('th').forEach(function (h) { h.classList.remove('sorted', 'asc'); });
      th.classList.add('sorted');
      if (asc) th.classList.add('asc');
      draw();
    });
    tr.appendChild(th);
  });
  thead.appendChild(tr);
  tableEl.appendChild(thead);
  const tbody = CT.el('tbody');
  tableEl.appendChild(tbody);
  function draw() {
    let shown = rows;
    if (query) {
      const q = query.toLowerCase();
      shown = rows.filter(function (r) {
        return cols.some(function (c) { return isText(c) && r[c.key] !== null && String(r[c.key]).toLowerCase().indexOf(q) >= 0; });
      });
    }
    if (sortKey) {
      shown = shown.slice().sort(function (a, b) {
        const x = a[sortKey], y = b[sortKey];
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        const lt = typeof x === 'number' && typeof y === 'number' ? x < y : String(x) < String(y);
        return (lt ? -1 : 1) * (asc ? 1 : -1);
      });
    }
    tbody.textContent = '';
    const frag = document.createDocumentFragment();
    shown.slice(0, limit).forEach(function (r) {
      const row = CT.el('tr');
      cols.forEach(function (c) {
        const v = r[c.key];
        const td = CT.el('td', {class: c.type === 'name' ? 'text name' : isText(c) ? 'text' : ''});
        if (c.key === 'tensor_cores' || c.key === 'tc_eligible') {
          if (v !== null) td.appendChild(CT.el('span', {class: 'pill ' + (v === 'yes' ? 'yes' : 'no'), text: v}));
        } else if (c.key === 'verdict' && v) {
          td.appendChild(CT.el('span', {class: 'pill v-' + String(v).split('-')[0].split(' ')[0], text: v}));
        } else {
          td.textContent = CT.fmtCell(c, v);
        }
        if (c.type === 'name' && v !== null) td.title = v;
        if (opts.swatch && c.key === opts.swatch.key) {
          const color = opts.swatch.color(r);
          if (color) td.insertBefore(CT.el('span', {class: 'swatch', style: 'background:' + color}), td.firstChild);
        }
        row.appendChild(td);
      });
      frag.appendChild(row);
    });
    tbody.appendChild(frag);
    info.textContent = Math.min(shown.length, limit).toLocaleString('en-US') + ' of ' + rows.length.toLocaleString('en-US') +
      ' rows' + (report.rows_total > report.rows.length ? ' (report has ' + report.rows_total + ')' : '') +
      (shown.length > limit ? ' (filter to see the others)' : '');
    return Math.min(shown.length, limit);
  }
  input.addEventListener('input', function () { query = input.value; draw(); });
  // opts.plain: a short table, without the filter.
  if (!opts.plain) wrap.appendChild(CT.el('div', {class: 'controls'}, input, info, opts.controls || null));
  wrap.appendChild(CT.el('div', {class: 'tablewrap'}, tableEl));
  const drawnRows = draw();
  CT.tables[tab] = (CT.tables[tab] || 0) + drawnRows;
  wrap.setRows = function (newRows) { rows = newRows; draw(); };
  return wrap;
};
