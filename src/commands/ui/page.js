// destbench ui: asks the server, shows what it says. Every figure comes from the server (the
// run document, the history, the report); this script only places it on the page.
'use strict';

const TOKEN = new URLSearchParams(location.search).get('t') || '';
const $ = (id) => document.getElementById(id);

function withToken(path) {
  return path + (path.includes('?') ? '&' : '?') + 't=' + encodeURIComponent(TOKEN);
}

async function get(path) {
  const r = await fetch(withToken(path));
  if (!r.ok) throw new Error(await r.text());
  return r;
}

async function post(path, fields) {
  const r = await fetch(withToken(path), { method: 'POST', body: new URLSearchParams(fields) });
  if (!r.ok) throw new Error(await r.text());
  return r.json();
}

function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function chosen() {
  const typed = $('folder').value.trim();
  if (typed) return typed;
  const radio = document.querySelector('input[name="destination"]:checked');
  return radio ? radio.value : '';
}

function showError(e) { $('error').textContent = e ? String(e.message || e) : ''; }

async function loadDestinations() {
  const list = await (await get('/api/destinations')).json();
  const ul = $('destinations');
  ul.replaceChildren();
  if (!list.length) ul.append(el('li', 'No mounted disk or share found: type a folder below.', { class: 'note' }));
  list.forEach((d, i) => {
    const label = el('label');
    const radio = el('input', null, { type: 'radio', name: 'destination', value: d.path });
    if (i === 0) radio.checked = true;
    radio.addEventListener('change', () => { $('folder').value = ''; refresh(); });
    const name = el('span', d.path + (d.free ? ' — ' + d.free + ' free' : '') + ' (' + d.kind + ')');
    label.append(radio, ' ', name, el('div', d.chain, { class: 'chain-line' }));
    const li = el('li');
    li.append(label);
    ul.append(li);
  });
}

async function loadProfiles() {
  const select = $('profile');
  try {
    const list = await (await get('/api/profiles?path=' + encodeURIComponent(chosen()))).json();
    const before = select.value; // read now: a choice made while the list was asked for stays
    select.replaceChildren(...list.map((p) => el('option',
      p.name + ' — about ' + p.planned + (p.default ? ' (the default)' : ''), { value: p.name })));
    const fallback = list.find((p) => p.default) || list[0];
    select.value = before || fallback.name;
  } catch (e) { showError(e); }
}

function historyTable(doc, tick) {
  if (!doc.runs.length) return el('p', 'No runs stored yet.', { class: 'note' });
  const table = el('table');
  const head = el('tr');
  ['', 'id', 'date (UTC)', 'label', 'destination', 'write MB/s', 'read MB/s', 'variant', 'failed']
    .forEach((h) => head.append(el('th', h)));
  table.append(head);
  for (const r of doc.runs) {
    const tr = el('tr', null, { 'data-run': r.id });
    const box = el('input', null, { type: 'checkbox', value: r.id, 'aria-label': 'compare run ' + r.id });
    box.addEventListener('change', tick);
    const cell = el('td');
    cell.append(box);
    const show = el('a', String(r.id), { href: '#answer' });
    show.addEventListener('click', () => showRun(r.id));
    const idCell = el('td');
    idCell.append(show);
    const date = new Date(r.started_unix_s * 1000).toISOString().slice(0, 16).replace('T', ' ');
    tr.append(cell, idCell, el('td', date), el('td', r.label || ''), el('td', r.destination),
      el('td', r.seq_write_mb_s == null ? '–' : r.seq_write_mb_s.toFixed(1), { class: 'n' }),
      el('td', r.seq_read_mb_s == null ? '–' : r.seq_read_mb_s.toFixed(1), { class: 'n' }),
      el('td', r.headline_variant || ''), el('td', r.failures ? String(r.failures) : ''));
    table.append(tr);
  }
  return table;
}

function ticked() {
  return [...new Set([...document.querySelectorAll('#history input[type=checkbox]:checked')].map((b) => b.value))];
}

function tick() { $('compare').disabled = ticked().length !== 2; }

async function loadHistory(destination) {
  try {
    const all = await (await get('/api/history')).json();
    $('history-all').replaceChildren(historyTable(all, tick));
    const here = destination || chosen();
    const mine = await (await get('/api/history?destination=' + encodeURIComponent(here))).json();
    $('history-here').replaceChildren(historyTable(mine, tick));
    tick();
  } catch (e) { showError(e); }
}

async function showRun(id) {
  const html = await (await get('/api/answer?id=' + id)).text();
  $('glance').innerHTML = html; // rendered and escaped by the server (report::tiles)
  $('answer-of').textContent = 'Run ' + id + ', as stored in the history; its whole report below.';
  $('report').src = withToken('/report?id=' + id);
  $('answer').hidden = false;
  $('answer').scrollIntoView();
}

let shown = null;

function showStatus(s) {
  const running = s.state === 'running';
  $('run').disabled = running;
  $('estimate-start').disabled = running;
  $('cancel').disabled = !running || s.cancelling;
  $('progress').hidden = !(running && s.what === 'run');
  if (running && s.progress) {
    $('bar').value = s.progress.fraction;
    $('elapsed').textContent = s.progress.elapsed;
    $('eta').textContent = s.progress.eta;
    $('message').textContent = (s.cancelling ? 'cancelling… ' : '') + s.progress.message;
  }
  if (running && s.what === 'estimate') $('estimate-out').textContent = 'Estimating ' + s.path + '…';
  if (s.state !== 'done') return;
  const key = JSON.stringify(s);
  if (key === shown) return;
  shown = key;
  const o = s.outcome;
  if (o.result === 'stored') { showRun(o.run_id); loadHistory(s.path); }
  if (o.result === 'not-stored') showError('The run finished but was not stored: every test failed.');
  if (o.result === 'estimated') $('estimate-out').textContent = o.text;
  if (o.result === 'failed' || o.result === 'cancelled') {
    if (s.what === 'estimate') $('estimate-out').textContent = o.error;
    else showError(o.error);
  }
}

async function poll() {
  try { showStatus(await (await get('/api/status')).json()); } catch (e) { showError(e); }
  setTimeout(poll, 500);
}

async function refresh() { await loadProfiles(); await loadHistory(); }

$('run').addEventListener('click', async () => {
  showError(null);
  try {
    const fields = { path: chosen(), profile: $('profile').value, data: $('what').value.trim() };
    showStatus(await post('/api/run', fields));
  } catch (e) { showError(e); }
});
$('cancel').addEventListener('click', async () => {
  try { showStatus(await post('/api/cancel', {})); } catch (e) { showError(e); }
});
$('estimate-start').addEventListener('click', async () => {
  try {
    showStatus(await post('/api/estimate', {
      source: $('source').value.trim(), to: chosen(), tool: $('estimate-tool').value.trim(),
    }));
  } catch (e) { $('estimate-out').textContent = String(e.message || e); }
});
$('compare').addEventListener('click', () => {
  const ids = ticked();
  const frame = $('comparison');
  frame.src = withToken('/report?' + ids.map((id) => 'id=' + encodeURIComponent(id)).join('&'));
  frame.hidden = false;
});
$('folder').addEventListener('change', refresh);

loadDestinations().then(refresh).catch(showError);
poll();
