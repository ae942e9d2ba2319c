// gridscope view: wires the panes, the timeline and the tabs together.
import { get } from './api.js';
import { renderComm, renderP2pTable } from './comm.js';
import { CubeBrowser } from './cube.js';
import { clear, el, table } from './dom.js';
import { ns, percent, seconds } from './format.js';
import { patternColour, patternOfMetric, patternsInSubtree } from './patterns.js';
import { FunctionFilter } from './function-filter.js';
import { renderLegend } from './legend.js';
import { PairHighlight } from './pair-highlight.js';
import { Timeline } from './timeline.js';
import { clearLoadState, drawLoadState, loadText, waitForTrace } from './trace-loading.js';

const $ = (id) => document.getElementById(id);
const state = { meta: null, timeline: null, cube: null, window: null, selected: [] };

function status(text, error = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

function setupTabs() {
  for (const button of document.querySelectorAll('#tabs button')) {
    button.addEventListener('click', () => {
      for (const b of document.querySelectorAll('#tabs button')) b.setAttribute('aria-selected', String(b === button));
      for (const s of document.querySelectorAll('.tab')) s.hidden = s.id !== `tab-${button.dataset.tab}`;
      if (button.dataset.tab === 'comm') updateComm();
    });
  }
}

// ------------------------------------------------------------------ wait states
function patternChips() {
  const box = clear($('pattern-chips'));
  const counts = (state.meta.summary && state.meta.summary.patterns) || {};
  state.meta.patterns.forEach((p, i) => {
    const s = counts[p];
    const extra = s ? ` grid ${seconds(s.grid || 0)} · local ${seconds(s.local || 0)}` : '';
    box.append(el('button', {
      class: 'chip', 'data-pattern': p, 'aria-pressed': 'false', title: `highlight every ${p} instance`,
      onclick: () => select([{ pattern: p, klass: null }]),
    }, el('i', { style: { background: patternColour(i) } }), p, el('span', { class: 'muted', text: extra })));
  });
  if (!state.meta.patterns.length) box.append(el('span', { class: 'muted', text: 'no wait states in this run' }));
}

async function select(list) {
  state.selected = list;
  for (const chip of document.querySelectorAll('#pattern-chips .chip')) {
    chip.setAttribute('aria-pressed', String(list.some((h) => h.pattern === chip.dataset.pattern)));
  }
  if (state.timeline) state.timeline.setHighlight(list);
  const box = clear($('instances'));
  box.dataset.patterns = list.map((h) => h.pattern).join(',');
  if (!list.length) return;
  const parts = await Promise.all(list.map((h) => get('/api/waitstates', { pattern: h.pattern, class: h.klass || undefined, limit: 100 })));
  if (state.selected !== list) return;
  const total = parts.reduce((a, p) => a + p.total, 0);
  const severity = parts.reduce((a, p) => a + p.total_severity_s, 0);
  const names = list.map((h) => (h.klass ? `${h.pattern} (${h.klass})` : h.pattern)).join(', ');
  box.append(el('p', { id: 'instances-summary', text: `${total} instances of ${names}, ${seconds(severity)} in total; the largest (click to zoom):` }));
  const rows = parts.flatMap((p) => p.instances.map((x) => ({ ...x, pattern: p.pattern })))
    .sort((a, b) => b.severity_s - a.severity_s).slice(0, 100);
  box.append(table(
    [{ label: 'pattern', text: true }, { label: 'class', text: true }, 'rank', 'start', 'waiting', { label: 'call path', text: true }],
    rows.map((x) => [x.pattern, x.class, x.rank, ns(x.start_ns), seconds(x.severity_s), x.callpath]),
    { onRowClick: (i) => zoomTo(rows[i]) },
  ));
}

function zoomTo(instance) {
  if (!state.timeline) return;
  const span = Math.max(instance.end_ns - instance.start_ns, 1000);
  state.timeline.setWindow(instance.start_ns - span, instance.end_ns + span);
  const y = state.timeline.yOf(instance.row);
  if (y !== undefined) $('timeline-wrap').scrollTop = Math.max(0, y - 60);
}

// ------------------------------------------------------------------ summary tab
// The story every view leads with (gridscope.analysis.story, sent by the server as text).
function renderStory(box) {
  const story = state.meta.story || {};
  const lines = story.shape || [];
  if (!lines.length) return;
  box.append(el('h2', { text: state.meta.diff ? 'What changed' : 'The run' }));
  for (const line of lines) box.append(el('p', { class: 'story-line', text: line }));
  if (state.meta.diff) return;
  box.append(el('h2', { text: 'Findings' }));
  if (!(story.findings || []).length) box.append(el('p', { class: 'muted', text: story.none || '' }));
  const list = el('ol', { id: 'findings', class: 'findings' });
  for (const f of story.findings || []) {
    const item = el('li');
    item.append(el('strong', { text: f.title }));
    if (f.patterns) item.append(el('div', { class: 'muted', text: `Waiting caused: ${f.patterns}.` }));
    item.append(el('div', { class: 'advice', text: `What to try: ${f.advice}` }));
    list.append(item);
  }
  box.append(list);
  if (story.path) box.append(el('p', { class: 'story-line', text: story.path }));
  renderLinks(box, story.links);
}

function renderLinks(box, links) {
  if (!(links || []).length) return;
  box.append(el('h2', { text: 'WAN links' }), table(
    [{ label: 'direction', text: true }, 'messages', 'bytes', 'latency', 'nominal', 'bandwidth', 'nominal', 'waiting caused'],
    links.map((l) => [l.link, l.messages, l.bytes, l.latency, l.nominal_latency, l.bandwidth, l.nominal_bandwidth, l.waiting]),
  ));
}

function renderSummary() {
  const s = state.meta.summary || {};
  const box = clear($('summary-view'));
  renderStory(box);
  const facts = [
    ['run', state.meta.run], ['ranks', s.ranks], ['metahosts', s.metahosts ? Object.entries(s.metahosts).map(([k, v]) => `${k} (${v})`).join(', ') : ''],
    ['events', s.events], ['total time', s.total_time_s !== undefined ? seconds(s.total_time_s) : ''],
    ['MPI time', s.mpi_time_s !== undefined ? seconds(s.mpi_time_s) : ''], ['clock violations', s.clock_violations],
    ['trace', s.trace || '(none)'],
  ];
  box.append(el('h2', { text: state.meta.diff ? 'Difference experiment' : 'Run' }),
    table([{ label: '', text: true }, { label: '', text: true }], facts.map(([k, v]) => [k, v ?? ''])));
  const patterns = s.patterns || {};
  const cls = (v) => ({ text: seconds(v), cls: state.meta.diff ? (v > 0 ? 'pos' : v < 0 ? 'neg' : '') : '' });
  box.append(el('h2', { text: 'Wait states (seconds summed over ranks)' }),
    table([{ label: 'pattern', text: true }, 'grid', 'local', 'total'],
      Object.entries(patterns).map(([p, v]) => [p, cls(v.grid || 0), cls(v.local || 0), cls((v.grid || 0) + (v.local || 0))])));
  renderRootCauses(box, s, cls);
  if (Array.isArray(s.by_metahost) && s.by_metahost.length) {
    box.append(el('h2', { text: 'Wait states by metahost' }),
      table([{ label: 'pattern', text: true }, { label: 'class', text: true }, { label: 'metahost', text: true }, 'seconds'],
        s.by_metahost.map((r) => [r.pattern, r.class, r.metahost, cls(r.seconds || 0)])));
  }
}

// Root causes (docs/root-causes.md): the delay costs by cause and the critical path.
function renderRootCauses(box, s, cls) {
  const block = s.root_cause_analysis;
  if (!block) return;
  box.append(el('h2', { text: 'Why: root causes (delay costs)' }));
  if (!block.enabled) { box.append(el('p', { class: 'muted', text: 'analysed with --no-root-causes' })); return; }
  const causes = (s.root_causes || []).slice(0, 20);
  if (causes.length) {
    box.append(table([{ label: 'cause', text: true }, { label: 'call path', text: true }, { label: 'on', text: true },
      { label: 'wait state caused', text: true }, { label: 'class', text: true }, 'short-term', 'long-term', 'total'],
    causes.map((r) => [r.kind, r.callpath, r.metahost, r.pattern, r.class, cls(r.short_term_s || 0), cls(r.long_term_s || 0), cls(r.total_s || 0)])));
  } else box.append(el('p', { class: 'muted', text: 'no wait state with a cause' }));
  const path = (s.critical_path || []).slice(0, 20);
  if (path.length) {
    box.append(el('h2', { text: 'Critical path' }),
      table([{ label: 'call path', text: true }, { label: 'metahost', text: true }, 'seconds', 'imbalance'],
        path.map((r) => [r.callpath, r.metahost, cls(r.seconds || 0), cls(r.imbalance_s || 0)])));
  }
}

// ------------------------------------------------------------------ window summaries
// Vampir's function and process summaries of the zoom window: where the time inside it went.
let windowTicket = 0;
async function windowSummary(t0, t1) {
  const mine = ++windowTicket;
  let w;
  try { w = await get('/api/window', { t0: Math.round(t0), t1: Math.round(t1) }); } catch (err) { return; }
  if (mine !== windowTicket) return;
  const box = clear($('window-summary'));
  box.dataset.t0 = String(w.t0);
  box.dataset.t1 = String(w.t1);
  const busiest = [...w.processes].sort((a, b) => b.mpi_s - a.mpi_s).slice(0, 10);
  box.append(
    el('div', { class: 'window-part' }, el('h3', { text: 'Functions in the window (exclusive time, all ranks; click: filter the timeline)' }),
      table(['time', '%', { label: 'region', text: true }, { label: 'kind', text: true }],
        w.functions.map((f) => [seconds(f.seconds), percent(f.seconds, w.total_s), f.name, f.mpi ? 'MPI' : 'computation']),
        { onRowClick: (i) => state.functions && state.functions.add(w.functions[i].name) })),
    el('div', { class: 'window-part' }, el('h3', { text: 'Processes: most MPI time in the window' }),
      table([{ label: 'rank', text: true }, { label: 'metahost', text: true }, 'MPI', '% of busy'],
        busiest.map((p) => [p.label, p.metahost, seconds(p.mpi_s), percent(p.mpi_s, p.busy_s)]))),
  );
}

// ------------------------------------------------------------------ communication tab
async function updateComm() {
  if (!state.meta.has_trace) {
    clear($('comm-view')).append(el('p', { class: 'muted', text: 'this run has no trace: no message matrix' }));
    return;
  }
  if (document.body.dataset.loaded !== '1') {  // finishLoading draws it once the trace is read
    clear($('comm-view')).append(el('p', { class: 'muted', text: 'reading the trace: the matrix follows' }));
    return;
  }
  try {
    await renderComm($('comm-view'), $('comm-total'), {
      level: $('comm-level').value, show: $('comm-value').value, scale: $('comm-scale').value, kind: $('comm-kind').value,
      window: $('comm-window').checked ? state.window : null, onCell: (cell) => state.pairs && state.pairs.show(cell),
    });
  } catch (err) { status(`communication matrix: ${err.message}`, true); }
}

// ------------------------------------------------------------------ timeline
function startTimeline(meta) {
  state.timeline = new Timeline({
    canvas: $('timeline'), wrap: $('timeline-wrap'), tooltip: $('tooltip'), meta,
    onPairDrawn: (count) => state.pairs.drawn(count),
    onWindow: (a, b) => {
      state.window = [a, b];
      $('window-label').textContent = `${ns(a)} – ${ns(b)} (${ns(b - a)} shown)`;
      clearTimeout(state.windowTimer);
      state.windowTimer = setTimeout(() => windowSummary(a, b), 150);
    },
  });
  state.window = [...state.timeline.full];
  $('window-label').textContent = `${ns(state.window[0])} – ${ns(state.window[1])}`;
  windowSummary(...state.window);
  $('zoom-in').addEventListener('click', () => state.timeline.zoom(0.5));
  $('zoom-out').addEventListener('click', () => state.timeline.zoom(2));
  $('zoom-reset').addEventListener('click', () => state.timeline.reset());
  $('rows-taller').addEventListener('click', () => state.timeline.zoomRows(2));
  $('rows-shorter').addEventListener('click', () => state.timeline.zoomRows(0.5));
  $('rank-filter').addEventListener('change', (e) => {
    const problem = state.timeline.setRankFilter(e.target.value);
    if (problem) status(problem, true);
  });
  state.functions = new FunctionFilter({
    input: $('function-filter'), datalist: $('function-names'), chips: $('function-filter-chips'),
    clearButton: $('function-filter-clear'), hideBox: $('function-filter-hide'),
    names: Object.values(meta.regions).map((r) => r.name),
    onError: (text) => status(text, true),
    onChange: (names, hide) => {
      state.timeline.setFunctionFilter(names, hide);
      if ($('status').textContent.startsWith('functions:')) status(state.idleStatus || '');
    },
  });
  state.pairs = new PairHighlight({
    timeline: state.timeline, rows: meta.rows, caption: $('pair-caption'), text: $('pair-text'),
    clearButton: $('pair-clear'), wrap: $('timeline-wrap'),
    showTimeline: () => document.querySelector('#tabs button[data-tab="analysis"]').click(),
  });
  $('path-toggle-label').hidden = !meta.critical_path_count;
  $('path-toggle').addEventListener('change', () => state.timeline.setShowPath($('path-toggle').checked));
  state.timeline.refresh();
  window.__gridscope = { timeline: state.timeline };
}

// The server reads the trace after the page opened (the first view of a run): the trees
// are up already; the timeline, the pattern chips and the status follow when it is read.
async function finishLoading() {
  const canvas = $('timeline');
  const wrap = $('timeline-wrap');
  let load = state.meta.load;
  if (!load.error) {
    try {
      load = await waitForTrace((l) => { if (state.meta.has_trace) drawLoadState(canvas, wrap, loadText(l)); });
    } catch (err) { load = { error: `cannot read the trace: ${err.message}` }; }
  }
  if (load.error) {
    if (state.meta.has_trace) drawLoadState(canvas, wrap, load.error, true);
    status(load.error, true);
    document.body.dataset.loaded = 'error';
    return;
  }
  const meta = await get('/api/meta');
  state.meta = meta;
  renderLegend($('legend'), meta);
  patternChips();
  if (meta.has_trace) {
    clearLoadState(canvas);
    startTimeline(meta);
  }
  state.idleStatus = idleStatus(meta);
  if (!$('status').classList.contains('error')) status(state.idleStatus);
  document.body.dataset.loaded = '1';  // trace and wait states there (the timeline draws on)
  if (!$('tab-comm').hidden) updateComm();
}

function idleStatus(meta) {
  const lead = ((meta.story || {}).shape || []).slice(0, 2).join(' · ');
  let trace = meta.trace_problem || '';
  if (meta.has_trace && !meta.rows) trace = 'reading the trace (once per run)…';
  else if (meta.has_trace) trace = `${meta.events.toLocaleString('en')} events, ${meta.rows.length} locations; wheel or +/− to zoom, drag or ←/→ to pan, double-click or 0 for the whole run`;
  return [lead, trace].filter(Boolean).join(' · ');
}

// ------------------------------------------------------------------ boot
async function boot() {
  setupTabs();
  let meta;
  try { meta = await get('/api/meta'); } catch (err) { status(`cannot load the run: ${err.message}`, true); return; }
  state.meta = meta;
  $('run-name').textContent = meta.run;
  document.title = `gridscope · ${meta.run}`;
  $('diff-badge').hidden = !meta.diff;
  const downloads = clear($('downloads'));
  for (const f of meta.downloads) downloads.append(el('a', { href: `/files/${encodeURIComponent(f)}`, download: f, text: f }));
  renderLegend($('legend'), meta);
  patternChips();
  renderSummary();
  renderP2pTable($('p2p-table'), (meta.summary || {}).p2p, (meta.story || {}).links);
  for (const id of ['comm-level', 'comm-window', 'comm-value', 'comm-scale', 'comm-kind']) $(id).addEventListener('change', updateComm);

  const loading = Boolean(meta.load && (meta.load.loading || meta.load.error)) || (meta.has_trace && !meta.rows);
  if (!meta.has_trace) {
    // no timeline (a difference experiment, a run without its trace): no empty box either;
    // the status line says why
    $('timeline-panel').hidden = true;
  } else if (loading) {
    drawLoadState($('timeline'), $('timeline-wrap'), loadText(meta.load), Boolean(meta.load.error));
  } else {
    startTimeline(meta);
  }

  if (meta.has_profile) {
    try {
      const profile = await get('/api/profile');
      const byId = profile.metrics;
      const children = byId.map(() => []);
      byId.forEach((m) => { if (m.parent >= 0) children[m.parent].push(m.id); });
      state.cube = new CubeBrowser(profile, {
        tags: (metric) => {
          const hit = patternOfMetric(metric, byId, state.meta.patterns);
          return hit && hit.klass ? { klass: hit.klass, text: hit.klass } : null;
        },
        onMetricSelected: (id) => select(patternsInSubtree(id, byId, children, state.meta.patterns)),
        onCallpathSelected: (path, inclusive) => { if (state.timeline) state.timeline.setFocus(path, inclusive); },
      });
      // the metric tree opens collapsed at the root (Cube's way): a closed node shows its
      // inclusive value, so a pattern clicked before it is opened shows where all of it is
      state.cube.mount($('metric-tree'), $('call-tree'), $('system-tree'));
      $('show-zero-metrics').addEventListener('change', (e) => state.cube.setShowZero(e.target.checked));
      $('value-mode').addEventListener('change', (e) => state.cube.setValueMode(e.target.value));
      $('tree-search').addEventListener('input', (e) => state.cube.setFilter(e.target.value));
    } catch (err) { status(`cannot load the profile: ${err.message}`, true); }
  } else {
    $('panes').hidden = true;
  }
  state.idleStatus = idleStatus(meta);
  if (!$('status').classList.contains('error')) status(state.idleStatus);
  document.body.dataset.ready = '1';
  if (loading) finishLoading(); else document.body.dataset.loaded = '1';
}

boot();
