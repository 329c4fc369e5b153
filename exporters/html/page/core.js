// The page's shared parts: the data, errors caught, colours, number formats
// and a small element builder. Every tab reads the reports as embedded.
'use strict';
const CT = {
  errors: [],
  charts: {},     // tab -> [echarts instances]
  drawn: {},      // tab -> charts that finished drawing
  tables: {},     // tab -> rows shown in its tables
  tabs: [],       // {id, title, empty}
};
window.onerror = function (message, source, line) {
  CT.errors.push(String(message) + (line ? ' (line ' + line + ')' : ''));
};
window.addEventListener('unhandledrejection', function (e) { CT.errors.push(String(e.reason)); });
CT.data = JSON.parse(document.getElementById('cuptitrace-data').textContent);

CT.report = function (name) {
  return (CT.data.reports || []).find(function (r) { return r.name === name; }) || null;
};
CT.rows = function (name) { const r = CT.report(name); return r ? r.rows : []; };
CT.hasColumn = function (report, key) { return !!report && report.columns.some(function (c) { return c.key === key; }); };

// One colour per category, the same in every tab.
CT.categories = [
  {key: 'kernel', title: 'Kernel', color: '#4C78A8'},
  {key: 'memcpy', title: 'Memcpy', color: '#F58518'},
  {key: 'memset', title: 'Memset', color: '#E45756'},
  {key: 'communication', title: 'Communication', color: '#72B7B2'},
  {key: 'sync', title: 'Sync', color: '#B279A2'},
  {key: 'runtime_api', title: 'Runtime API', color: '#EECA3B'},
  {key: 'dataloader', title: 'DataLoader', color: '#9D755D'},
  {key: 'cpu_exec', title: 'CPU Exec', color: '#54A24B'},
  {key: 'other', title: 'Other', color: '#BAB0AC'},
];
CT.otherColor = '#C9CED6';
CT.tensorColor = '#76B900';
// Names in donuts and series: a ten-colour palette, then again.
CT.palette = ['#4C78A8', '#F58518', '#54A24B', '#E45756', '#72B7B2', '#EECA3B', '#B279A2', '#FF9DA6', '#9D755D', '#5F9ED1'];

CT.fmtDur = function (ns) {
  if (ns === null || ns === undefined || ns === '') return '';
  const v = Number(ns), a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(a >= 1e10 ? 1 : 2) + ' s';
  if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e8 ? 1 : 2) + ' ms';
  if (a >= 1e3) return (v / 1e3).toFixed(a >= 1e5 ? 1 : 2) + ' µs';
  return Math.round(v) + ' ns';
};
CT.fmtBytes = function (b) {
  if (b === null || b === undefined || b === '') return '';
  let v = Number(b);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(v >= 100 ? 0 : 1) : String(v)) + ' ' + units[i];
};
CT.fmtPct = function (p) { return p === null || p === undefined || p === '' ? '' : Number(p).toFixed(1) + '%'; };
CT.fmtCount = function (n) { return n === null || n === undefined || n === '' ? '' : Number(n).toLocaleString('en-US'); };
CT.fmtCell = function (col, v) {
  if (v === null || v === undefined) return '';
  switch (col.type) {
    case 'duration': return CT.fmtDur(v);
    case 'percent': return CT.fmtPct(v);
    case 'bytes': return CT.fmtBytes(v);
    case 'count': return CT.fmtCount(v);
    case 'rate': return Number(v).toFixed(2) + ' GB/s';
    default: return String(v);
  }
};

// el('div', {class: 'card'}, child, 'text', ...)
CT.el = function (tag, attrs) {
  const e = document.createElement(tag);
  if (attrs) for (const k in attrs) {
    if (k === 'text') e.textContent = attrs[k];
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
    else e.setAttribute(k, attrs[k]);
  }
  for (let i = 2; i < arguments.length; i++) {
    const c = arguments[i];
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return e;
};
CT.card = function (title, sub) {
  return CT.el('section', {class: 'card'}, CT.el('h2', null, title, sub ? CT.el('span', {class: 'sub', text: sub}) : null));
};
// What a tab would show, and what fills it, when the trace has none of it.
CT.emptyState = function (title, text) {
  return CT.el('div', {class: 'empty-state'}, CT.el('h3', {text: title}), CT.el('div', {text: text}));
};
CT.notes = function (report) {
  if (!report || !report.notes || !report.notes.length) return document.createTextNode('');
  return CT.el('p', {class: 'note', text: report.notes.join(' · ')});
};
