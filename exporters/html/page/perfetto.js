// "Open in Perfetto": opens ui.perfetto.dev in a new window and hands it the
// trace by Perfetto's postMessage protocol: PING until the UI answers PONG,
// then post {perfetto: {buffer, title}}. The trace is the one embedded in the
// page (a small trace's .pftrace) or a file the user picks. Needs
// ui.perfetto.dev to be reachable; nothing else leaves the page. A page
// opened from file:// has no origin Perfetto knows, so Perfetto asks the user
// to confirm before it opens the trace.
CT.perfettoOrigin = 'https://ui.perfetto.dev';
CT.perfettoFileName = 'trace.pftrace';
CT.openInPerfetto = function (buffer, title) {
  const win = window.open(CT.perfettoOrigin);
  if (!win) { CT.perfettoHint('The browser blocked the new window: allow pop-ups for this page.'); return; }
  let tries = 0;
  const timer = setInterval(function () {
    if (++tries > 100) { clearInterval(timer); CT.perfettoHint('Perfetto did not answer: is ui.perfetto.dev reachable?'); return; }
    win.postMessage('PING', CT.perfettoOrigin);
  }, 100);
  function onMessage(e) {
    if (e.origin !== CT.perfettoOrigin || e.data !== 'PONG') return;
    clearInterval(timer);
    window.removeEventListener('message', onMessage);
    win.postMessage({perfetto: {buffer: buffer, title: title, fileName: CT.perfettoFileName}}, CT.perfettoOrigin);
  }
  window.addEventListener('message', onMessage);
};
CT.perfettoHint = function (text) { document.getElementById('perfetto-hint').textContent = text; };
CT.setupPerfetto = function () {
  const button = document.getElementById('perfetto-open');
  const picker = document.getElementById('perfetto-file');
  const title = (CT.data.run && (CT.data.run.process || CT.data.run.source)) || 'cuptitrace';
  const embedded = CT.data.timeline;
  CT.perfettoHint((embedded ? 'The trace is in this page.' : 'Pick the trace\'s .pftrace or .json.') +
    ' Needs ui.perfetto.dev online; Perfetto asks you to confirm.');
  button.addEventListener('click', function () {
    if (embedded) {
      const bin = atob(embedded);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      CT.perfettoFileName = title.replace(/[^A-Za-z0-9._-]+/g, '_') + '.pftrace';
      CT.openInPerfetto(bytes.buffer, title);
    } else {
      picker.click();
    }
  });
  picker.addEventListener('change', function () {
    const file = picker.files[0];
    if (!file) return;
    CT.perfettoFileName = file.name;
    file.arrayBuffer().then(function (buffer) { CT.openInPerfetto(buffer, file.name); });
  });
};
